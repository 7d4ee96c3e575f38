import type { Config } from '../config'
import type { Outbox } from '../db/outbox'

// The operator's sending limits (DESIGN.md §1): an instance-wide rate (token bucket, burst of
// one second's worth), a per-recipient-domain limit per minute and a per-client cap per hour.
// A message over a window's limit is deferred to the window's end, not failed.

export function createRateBucket(ratePerSecond: number | null, now: () => number) {
  let tokens = ratePerSecond ?? 0
  let last = now()
  return {
    /** Resolves when a send may start. */
    async take(): Promise<void> {
      if (ratePerSecond === null) return
      for (;;) {
        const t = now()
        tokens = Math.min(ratePerSecond, tokens + ((t - last) / 1000) * ratePerSecond)
        last = t
        if (tokens >= 1) {
          tokens -= 1
          return
        }
        await Bun.sleep(Math.max(1, Math.ceil(((1 - tokens) / ratePerSecond) * 1000)))
      }
    },
  }
}

interface Window {
  start: number
  count: number
}

export function createWindowLimits(
  outbox: Pick<Outbox, 'sentSince'>,
  config: Pick<Config, 'domainThrottle' | 'clientHourlyCap'>,
) {
  const { domainThrottle, clientHourlyCap } = config
  const domains = new Map<string, Window>()
  const clients = new Map<string, Window>()
  const windowOf = (map: Map<string, Window>, key: string, start: number, seed: () => number) => {
    // Every entry of a map shares one window length: when a new window starts, the old entries
    // are all stale, so the map never grows past the keys of one window.
    const any = map.values().next().value
    if (any && any.start !== start) map.clear()
    let w = map.get(key)
    if (!w || w.start !== start) {
      w = { start, count: seed() }
      map.set(key, w)
    }
    return w
  }
  return {
    /** Reserves a send for (client, recipient); returns the time to defer to when over a limit. */
    reserve(clientId: string, to: string, now: number): number | null {
      const checks: [Window, number, number][] = []
      if (clientHourlyCap !== null) {
        const start = now - (now % 3_600_000)
        // After a restart the hour's earlier sends still count.
        const w = windowOf(clients, clientId, start, () => outbox.sentSince(clientId, start))
        checks.push([w, clientHourlyCap, start + 3_600_000])
      }
      // Recipient domains are an email notion; phone numbers have none.
      if (domainThrottle !== null && to.includes('@')) {
        const start = now - (now % 60_000)
        const domain = to.slice(to.lastIndexOf('@') + 1).toLowerCase()
        checks.push([windowOf(domains, domain, start, () => 0), domainThrottle, start + 60_000])
      }
      for (const [w, limit, end] of checks) if (w.count >= limit) return end
      for (const [w] of checks) w.count++
      return null
    },
  }
}
