// PostgreSQL's error codes (SQLSTATE) as the driver reports them, or wrapped by drizzle.

/** The SQLSTATE of a PostgreSQL error, looking through drizzle's wrapping; null for others. */
export function sqlStateOf(err: unknown): string | null {
  for (
    let e = err as { errno?: unknown; code?: unknown; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (typeof e.errno === 'string' && /^[0-9A-Z]{5}$/.test(e.errno)) return e.errno
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code
  }
  return null
}

/**
 * A transaction that lost a race with another process's: a unique key the other committed first
 * (23505), a serialization failure (40001) or a deadlock (40P01). Run again, it sees what the other
 * committed and answers as it would have one after the other.
 */
export const lostRace = (err: unknown): boolean => {
  const state = sqlStateOf(err)
  return state === '23505' || state === '40001' || state === '40P01'
}
