import type { Database } from 'bun:sqlite'

/**
 * Statements prepared once per connection and reused: `build` runs on the first call for a
 * database, later calls get the same object. Hot paths (one event, one delivery, one CSV row)
 * then pay neither parsing nor planning per call.
 */
export function perConnection<T>(build: (sqlite: Database) => T): (sqlite: Database) => T {
  const built = new WeakMap<Database, T>()
  return (sqlite) => {
    let s = built.get(sqlite)
    if (s === undefined) {
      s = build(sqlite)
      built.set(sqlite, s)
    }
    return s
  }
}
