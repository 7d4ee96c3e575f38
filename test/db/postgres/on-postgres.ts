// The test files that pass on the PostgreSQL store, run by test/db/postgres/suite.test.ts in a
// second `bun test` process started on PostgreSQL. The store is a preview: this list grows as
// each part of Herald gets its PostgreSQL statements, until it is every file but a named few
// whose subject is the SQLite file itself.
export const ON_POSTGRES: readonly string[] = ['test/db/postgres/store.test.ts']
