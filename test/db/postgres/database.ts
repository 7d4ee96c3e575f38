import { SQL } from 'bun'

// A database of its own for a test file, on the server HERALD_TEST_POSTGRES_URL names. Stands in
// until test/helpers/postgres.ts (freshDatabase) is on this branch; swap the call then.
export async function testDatabase(): Promise<SQL> {
  const url = process.env.HERALD_TEST_POSTGRES_URL
  if (!url) throw new Error('HERALD_TEST_POSTGRES_URL must name a PostgreSQL server for this test')
  const name = `herald_search_${process.pid}_${Math.floor(Math.random() * 1e9)}`
  const admin = new SQL(url)
  await admin.unsafe(`CREATE DATABASE "${name}"`)
  await admin.close()
  const u = new URL(url)
  u.pathname = `/${name}`
  return new SQL(u.toString(), { max: 1 })
}
