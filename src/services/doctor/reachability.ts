import { type DoctorCheck, fail, ok, warn } from './check'

const TIMEOUT_MS = 5_000
/** A clock this far from the server answering at the public URL signs and tracks wrongly. */
const SKEW_WARN_MS = 30_000

/**
 * The public URL asked from outside the process (through DNS, the proxy, TLS) and the clock
 * compared with the Date header of its answer (a second's precision).
 */
export async function reachabilityChecks(publicUrl: string, now: () => number): Promise<DoctorCheck[]> {
  const target = `${publicUrl}/healthz`
  let res: Response
  const sent = now()
  try {
    res = await fetch(target, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' })
  } catch (err) {
    return [
      fail(
        'public URL answers',
        `${target}: ${(err as Error).message} (is the server running, the proxy and DNS set?)`,
      ),
      warn('clock', 'not compared: the public URL did not answer'),
    ]
  }
  const reached =
    res.status === 200
      ? ok('public URL answers', `${target} → 200`)
      : fail('public URL answers', `${target} → ${res.status} (a proxy in the way, or another server?)`)
  const date = Date.parse(res.headers.get('date') ?? '')
  if (Number.isNaN(date)) return [reached, warn('clock', 'not compared: the answer had no Date header')]
  const skew = Math.abs((sent + now()) / 2 - date)
  const clock =
    skew <= SKEW_WARN_MS
      ? ok('clock', `within ${Math.ceil(skew / 1000)} s of the server's Date header`)
      : warn(
          'clock',
          `${Math.round(skew / 1000)} s off the server's Date header: run NTP (timesyncd, chrony)`,
        )
  return [reached, clock]
}
