import type { Config } from '../config'
import type { AppContext } from '../context'
import type { Outbox } from '../db/outbox'
import type { Awaitable } from '../lib/awaitable'
import type { DeferReason } from '../lib/enums'
import { dayOf } from '../lib/time'
import type { WarmupPlan } from '../services/deliverability/warmup'

// The operator's sending limits: an instance-wide rate (token bucket, burst of
// one second's worth), a per-recipient-domain limit per minute and a per-client cap per hour.
// A message over a window's limit is deferred to the window's end, not failed.
// Mail that reaches real inboxes (the smtp provider) also keeps under per-minute defaults for
// the big mailbox providers (HERALD_DOMAIN_THROTTLES overrides them and adds others; the
// domains of one provider share its limit) and under the warm-up cap of a new sending domain
// (one UTC day per window, deferred to the next day). A client's sending profile brings its
// throttles and hourly cap; a client with its own account has domain windows of its own.

/** Per-minute limits of the big mailbox providers, by the name of the provider's group. */
export const DEFAULT_DOMAIN_THROTTLES: Readonly<Record<string, number>> = {
  'gmail.com': 600,
  'outlook.com': 300,
  'yahoo.com': 300,
}
/** Recipient domains that are one mailbox provider: they share one window and limit. */
const PROVIDER_GROUPS: Readonly<Record<string, string>> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
  'outlook.com': 'outlook.com',
  'hotmail.com': 'outlook.com',
  'live.com': 'outlook.com',
  'yahoo.com': 'yahoo.com',
}

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

/** Over a limit: the end of its window, and which limit it was (a campaign's `deferred` says). */
export interface Deferral {
  at: number
  reason: DeferReason
}

/** The warm-up rules and counts the limits read and save (part of SendDeps, deps.ts). */
export interface WarmupDeps {
  /** The warm-up cap of the UTC day of `now`; null once the schedule is over. */
  warmupCap(startedAt: number, now: number): number | null
  warmupSentOn(app: AppContext, domainId: string, day: number): Awaitable<number>
  saveWarmupCount(app: AppContext, domainId: string, day: number, sent: number): Awaitable<void>
}

/** The limits of the account a message goes through: a client's own, or the instance's. */
export interface AccountLimits {
  /** Names the account's recipient-domain windows ('' for the instance's account). */
  key: string
  /** Per-minute limits by recipient domain (or provider group). */
  throttles: Readonly<Record<string, number>>
  hourlyCap: number | null
  /** Mail reaching real inboxes keeps under the big mailbox providers' defaults. */
  smtp: boolean
}

export function createWindowLimits(
  outbox: Pick<Outbox, 'sentSince'>,
  config: Pick<Config, 'domainThrottle' | 'clientHourlyCap' | 'domainThrottles' | 'emailProvider'>,
  /** Reads and saves warm-up counts (absent: no warm-up, as in unit tests of the windows). */
  warming?: { app: AppContext; deps: WarmupDeps },
) {
  const { domainThrottle } = config
  const instance: AccountLimits = {
    key: '',
    throttles: config.domainThrottles,
    hourlyCap: config.clientHourlyCap,
    smtp: config.emailProvider === 'smtp',
  }
  /** The window key and per-minute limit of a recipient domain, or null when unlimited. */
  const domainLimit = (domain: string, account: AccountLimits): [string, number] | null => {
    const { throttles } = account
    const group = PROVIDER_GROUPS[domain]
    const set = throttles[domain] ?? (group ? throttles[group] : undefined)
    // An account's windows are its own: two clients' relays each get the providers' limit.
    const named = (name: string) => (account.key === '' ? name : `${account.key}|${name}`)
    if (set !== undefined) return [named(throttles[domain] !== undefined ? domain : group!), set]
    if (group && account.smtp) return [named(group), DEFAULT_DOMAIN_THROTTLES[group]!]
    return domainThrottle === null ? null : [named(domain), domainThrottle]
  }
  const domains = new Map<string, Window>()
  const clients = new Map<string, Window>()
  const warmed = new Map<string, Window>()
  const current = (map: Map<string, Window>, key: string, start: number) => map.get(key)?.start === start
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
    /**
     * Reserves a send for (client, recipient) under its account's limits; returns when and why
     * to defer when over a limit.
     */
    async reserve(
      clientId: string,
      to: string,
      now: number,
      warmup: WarmupPlan | null = null,
      account: AccountLimits = instance,
    ): Promise<Deferral | null> {
      const clientHourlyCap = account.hourlyCap
      const hourStart = now - (now % 3_600_000)
      const cap = warmup && warming ? warming.deps.warmupCap(warmup.startedAt, now) : null
      const day = dayOf(now)
      // A window missing from memory starts from the store's count (after a restart the hour's
      // and the day's earlier sends still count). Those reads come first: from the check to the
      // count below nothing awaits, so concurrent reservations never slip between them.
      let hourSeed: number | undefined
      let warmSeed: number | undefined
      for (;;) {
        if (clientHourlyCap !== null && hourSeed === undefined && !current(clients, clientId, hourStart)) {
          hourSeed = await outbox.sentSince(clientId, hourStart)
          continue
        }
        if (
          warmup &&
          warming &&
          cap !== null &&
          warmSeed === undefined &&
          !current(warmed, warmup.domainId, day)
        ) {
          warmSeed = await warming.deps.warmupSentOn(warming.app, warmup.domainId, day)
          continue
        }
        break
      }
      const checks: [Window, number, number, DeferReason][] = []
      if (clientHourlyCap !== null) {
        const w = await windowOf(clients, clientId, hourStart, () => hourSeed ?? 0)
        checks.push([w, clientHourlyCap, hourStart + 3_600_000, 'hourly_cap'])
      }
      // Recipient domains are an email notion; phone numbers have none.
      const limit = to.includes('@')
        ? domainLimit(to.slice(to.lastIndexOf('@') + 1).toLowerCase(), account)
        : null
      if (limit !== null) {
        const start = now - (now % 60_000)
        checks.push([await windowOf(domains, limit[0], start, () => 0), limit[1], start + 60_000, 'throttle'])
      }
      if (warmup && warming && cap !== null) {
        const w = await windowOf(warmed, warmup.domainId, day, () => warmSeed ?? 0)
        checks.push([w, cap, day + 86_400_000, 'warmup'])
      }
      for (const [w, max, at, reason] of checks) if (w.count >= max) return { at, reason }
      for (const [w] of checks) w.count++
      // The day's count is saved as it goes, so a restart does not start the day over.
      if (warmup && warming && cap !== null)
        await warming.deps.saveWarmupCount(
          warming.app,
          warmup.domainId,
          day,
          warmed.get(warmup.domainId)!.count,
        )
      return null
    },
  }
}
