import type { Config } from '../config'
import type { AppContext } from '../context'
import type { Db } from '../db/client'
import type { Outbox } from '../db/outbox'
import { countInWindow, uncountInWindow } from '../db/shared-limits'
import type { Awaitable } from '../lib/awaitable'
import type { DeferReason } from '../lib/enums'
import { dayOf } from '../lib/time'
import type { TakeTokens } from '../lib/token-buckets'
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

/**
 * The instance-wide send rate: a bucket with a burst of one second's worth. `take` holds the
 * bucket (in memory, or shared by the processes on one database).
 */
export function createRateBucket(ratePerSecond: number | null, now: () => number, take: TakeTokens) {
  const limit = ratePerSecond === null ? null : { perMinute: ratePerSecond * 60, burst: ratePerSecond }
  return {
    /** Resolves when a send may start. */
    async take(): Promise<void> {
      if (limit === null) return
      for (;;) {
        const d = await take('send-rate', limit, now())
        if (d.allowed) return
        await Bun.sleep(Math.max(1, d.retryAfterMs ?? 1))
      }
    },
  }
}

/** One window a send must have room in: a domain's minute, a client's hour, a warming domain's day. */
interface WindowCheck {
  kind: 'minute' | 'hour' | 'day'
  key: string
  start: number
  max: number
  /** What a window new to the counter starts from. */
  seed: () => Awaitable<number>
  /** Where a send over the limit is deferred to, and why. */
  end: number
  reason: DeferReason
  /** The window's count once this send is in it. */
  counted?: number
}

/**
 * Windows in this process's memory. Each kind keeps only its current windows: when a new one
 * starts, the old entries are all stale, so a map never grows past the keys of one window.
 */
function memoryCounter() {
  const windows = {
    minute: new Map<string, Window>(),
    hour: new Map<string, Window>(),
    day: new Map<string, Window>(),
  }
  const current = (c: WindowCheck) => windows[c.kind].get(c.key)?.start === c.start
  return {
    async count(checks: readonly WindowCheck[]): Promise<WindowCheck | null> {
      // Seeds are read first; from the check to the count below nothing awaits, so concurrent
      // reservations never slip between them. A window another reservation started while a
      // seed was read keeps its count.
      const seeds = new Map<WindowCheck, number>()
      for (let more = true; more; ) {
        more = false
        for (const c of checks)
          if (!current(c) && !seeds.has(c)) {
            seeds.set(c, await c.seed())
            more = true
            break
          }
      }
      const ws = checks.map((c) => {
        const map = windows[c.kind]
        const any = map.values().next().value
        if (any && any.start !== c.start) map.clear()
        let w = map.get(c.key)
        if (!w || w.start !== c.start) {
          w = { start: c.start, count: seeds.get(c) ?? 0 }
          map.set(c.key, w)
        }
        return w
      })
      for (let i = 0; i < checks.length; i++) if (ws[i]!.count >= checks[i]!.max) return checks[i]!
      for (let i = 0; i < checks.length; i++) checks[i]!.counted = ++ws[i]!.count
      return null
    },
  }
}

/**
 * Windows in the database, counted with every process on it: each window's count moves by one
 * statement that counts the send only under the limit. A send one window refuses is taken back
 * from those that counted it. The seed is read when this process first meets a window.
 */
function sharedCounter(db: Db) {
  const met = { minute: new Set<string>(), hour: new Set<string>(), day: new Set<string>() }
  const starts = { minute: 0, hour: 0, day: 0 }
  const name = (c: WindowCheck) => `${c.kind}|${c.key}`
  return {
    async count(checks: readonly WindowCheck[]): Promise<WindowCheck | null> {
      const done: WindowCheck[] = []
      const undo = async () => {
        for (const d of done) await uncountInWindow(db, name(d), d.start)
      }
      try {
        // The shortest window first: a send a domain's minute refuses never holds a place in the
        // client's hour or a warming domain's day meanwhile, where another process would see the
        // cap reached.
        for (const c of [...checks].sort((x, y) => SHORTEST_FIRST[x.kind] - SHORTEST_FIRST[y.kind])) {
          if (starts[c.kind] !== c.start) {
            starts[c.kind] = c.start
            met[c.kind].clear()
          }
          const seed = met[c.kind].has(c.key) ? 0 : await c.seed()
          const r = await countInWindow(db, name(c), c.start, c.max, seed)
          met[c.kind].add(c.key)
          if (!r.counted) {
            await undo()
            return c
          }
          c.counted = r.count
          done.push(c)
        }
      } catch (err) {
        // Counted where it could not all be: taken back, as for a refusal.
        await undo().catch(() => {})
        throw err
      }
      return null
    },
  }
}

const SHORTEST_FIRST = { minute: 0, hour: 1, day: 2 } as const

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
  /** Counts the windows in this database, with the other processes on it (absent: in memory). */
  shared?: Db,
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
  const counter = shared ? sharedCounter(shared) : memoryCounter()
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
      const checks: WindowCheck[] = []
      if (account.hourlyCap !== null) {
        const start = now - (now % 3_600_000)
        // A window new to the counter starts from the store's count (after a restart the
        // hour's earlier sends still count).
        const seed = () => outbox.sentSince(clientId, start)
        checks.push({
          kind: 'hour',
          key: clientId,
          start,
          max: account.hourlyCap,
          seed,
          end: start + 3_600_000,
          reason: 'hourly_cap',
        })
      }
      // Recipient domains are an email notion; phone numbers have none.
      const limit = to.includes('@')
        ? domainLimit(to.slice(to.lastIndexOf('@') + 1).toLowerCase(), account)
        : null
      if (limit !== null) {
        const start = now - (now % 60_000)
        checks.push({
          kind: 'minute',
          key: limit[0],
          start,
          max: limit[1],
          seed: () => 0,
          end: start + 60_000,
          reason: 'throttle',
        })
      }
      const cap = warmup && warming ? warming.deps.warmupCap(warmup.startedAt, now) : null
      if (warmup && warming && cap !== null) {
        const day = dayOf(now)
        const seed = () => warming.deps.warmupSentOn(warming.app, warmup.domainId, day)
        checks.push({
          kind: 'day',
          key: warmup.domainId,
          start: day,
          max: cap,
          seed,
          end: day + 86_400_000,
          reason: 'warmup',
        })
      }
      if (checks.length === 0) return null
      const full = await counter.count(checks)
      if (full) return { at: full.end, reason: full.reason }
      // The day's count is saved as it goes, so a restart does not start the day over.
      const day = checks.find((c) => c.kind === 'day')
      if (day && warmup && warming)
        await warming.deps.saveWarmupCount(warming.app, warmup.domainId, day.start, day.counted!)
      return null
    },
  }
}
