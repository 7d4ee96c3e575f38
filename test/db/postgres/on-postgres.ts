// The test files that pass on the PostgreSQL store, run by test/db/postgres/suite.test.ts in a
// second `bun test` process started on PostgreSQL. The store is a preview: this list grows as
// each part of Herald gets its PostgreSQL statements, until it is every file but a named few
// whose subject is the SQLite file itself.
export const ON_POSTGRES: readonly string[] = [
  'test/db/postgres/store.test.ts',
  'test/http/admin/account.test.ts',
  'test/http/admin/api-keys.test.ts',
  'test/http/admin/auth.test.ts',
  'test/http/admin/clients.test.ts',
  'test/http/admin/login-rate.test.ts',
  'test/http/admin/roles.test.ts',
  'test/http/auth.test.ts',
  'test/http/client-id-query.test.ts',
  'test/http/clients.test.ts',
  'test/http/idempotency.test.ts',
  'test/http/openapi-webhooks.test.ts',
  'test/http/rate-limit.test.ts',
  'test/http/webhooks-test-event.test.ts',
  'test/http/webhooks.test.ts',
  'test/services/api-keys.test.ts',
  'test/services/users/users.test.ts',
  'test/webhooks/concurrency.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/dns-cache.test.ts',
  'test/webhooks/lease-recovery.test.ts',
  'test/webhooks/ssrf.test.ts',
]
