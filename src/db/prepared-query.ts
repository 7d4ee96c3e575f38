import { DIALECT } from './dialect'

// A drizzle query prepared once, its `sql.placeholder`s filled per call. SQLite's prepared
// query answers .all()/.get()/.run(), PostgreSQL's .execute(): callers get one function that
// resolves with the rows on either store (none for a write without RETURNING).

type Values = Record<string, unknown>

interface Preparable<R> {
  prepare(): { all(values?: Values): R[] }
}

export function preparedQuery<R>(query: Preparable<R>, name: string): (values: Values) => Promise<R[]> {
  // PostgreSQL names its prepared statements; SQLite's prepare() takes no name.
  const prepared = (query.prepare as (name: string) => unknown).call(query, name)
  if (DIALECT === 'postgres') {
    const p = prepared as { execute(values: Values): Promise<R[]> }
    return (values) => p.execute(values)
  }
  const s = prepared as { all(values: Values): R[] }
  return async (values) => s.all(values)
}

/** A write prepared once (no RETURNING): resolves when it has run. */
export function preparedWrite(
  query: { prepare(): unknown },
  name: string,
): (values: Values) => Promise<void> {
  const prepared = (query.prepare as (name: string) => unknown).call(query, name)
  if (DIALECT === 'postgres') {
    const p = prepared as { execute(values: Values): Promise<unknown> }
    return async (values) => void (await p.execute(values))
  }
  const s = prepared as { run(values: Values): unknown }
  return async (values) => void s.run(values)
}
