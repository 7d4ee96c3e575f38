// Which store this process runs on. It is fixed when the process starts, from the scheme of
// HERALD_DATABASE_URL (postgres:// or postgresql://; anything else, or nothing, is the embedded
// SQLite file), because the table definitions every query is built from are chosen by it when
// they are first imported (schema/index.ts).

export type Dialect = 'sqlite' | 'postgres'

/** Whether a database URL names PostgreSQL. */
export const isPostgresUrl = (url: string | undefined): boolean => /^postgres(ql)?:\/\//i.test(url ?? '')

export const DIALECT: Dialect = isPostgresUrl(process.env.HERALD_DATABASE_URL) ? 'postgres' : 'sqlite'
