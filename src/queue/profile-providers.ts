import { CALLBACK_CLIENT_PARAM, createProvider, type ProviderSettings } from '../channels/registry'
import type { Channel, ChannelFeedback, ChannelProvider } from '../channels/types'
import type { AppContext } from '../context'
import type { Awaitable } from '../lib/awaitable'
import type { EffectiveProfile } from '../services/sending-profiles/effective'
import type { AccountLimits } from './throttle'

// Which provider sends a client's message: the instance's, unless the client's sending profile
// has an account of its own for the channel. Then one is made from the profile on first use,
// kept per (client, profile version), and let go when a newer version shows up, when idle for
// IDLE_CLOSE_MS, and on stop. A client's profile is read at most once per PROFILE_TTL_MS, so
// the hot path never queries per message and a PUT takes hold within a second.

const PROFILE_TTL_MS = 1_000
const IDLE_CLOSE_MS = 5 * 60_000
const SWEEP_MS = 60_000
/** Twilio's own API, for a profile that names no base URL. */
const TWILIO_API = 'https://api.twilio.com'

/** A client's own SMTP account; `key` names its pools on the send threads (client and version). */
export interface SmtpTarget {
  key: string
  url: string
  pool: number
}

export interface Route {
  provider: ChannelProvider
  /** The client's own account, not the instance's. */
  own: boolean
  /** Set for a client's own SMTP account: the send threads send through pools of their own for it. */
  smtp: SmtpTarget | null
  /** The throttles and hourly cap of the client's profile. */
  limits: AccountLimits
}

export interface ProfileProvidersOptions {
  instance: Record<Channel, ChannelProvider>
  /** The client's profile with `inherit` resolved (SendDeps.sendingProfile). */
  profileOf(clientId: string): Awaitable<EffectiveProfile>
  feedback(): ChannelFeedback
  /** A client's SMTP account was let go: the send threads close its pools. */
  dropped?(target: SmtpTarget): void
}

export type ProfileProviders = ReturnType<typeof createProfileProviders>

interface Cached {
  profile: EffectiveProfile
  at: number
  /** The routes worked out from this read of the profile, per channel. */
  routes: Partial<Record<Channel, Route>>
}

interface Own {
  version: number
  route: Route
  usedAt: number
}

/** The provider settings of a client's own account for `channel`: the instance's, overridden. */
function settingsOf(app: AppContext, p: EffectiveProfile, channel: Channel): ProviderSettings {
  if (channel === 'email')
    return {
      ...app.config,
      emailProvider: p.email.provider,
      smtpUrl: p.email.smtpUrl,
      smtpPool: p.email.pool,
    }
  const text = p.text[channel]
  return {
    ...app.config,
    [`${channel}Provider`]: text.provider,
    twilioBaseUrl: text.twilio?.baseUrl ?? TWILIO_API,
    twilioAccountSid: text.twilio?.accountSid ?? null,
    twilioAuthToken: text.twilio?.authToken ?? null,
    twilioFrom: text.twilio?.from ?? null,
  }
}

const limitsOf = (p: EffectiveProfile): AccountLimits => ({
  key: p.email.own ? p.clientId : '',
  throttles: p.email.throttles,
  hourlyCap: p.email.hourlyCap,
  smtp: p.email.provider === 'smtp',
})

const ownAccount = (p: EffectiveProfile, channel: Channel) =>
  channel === 'email' ? p.email.own : p.text[channel].own

export function createProfileProviders(app: AppContext, options: ProfileProvidersOptions) {
  const profiles = new Map<string, Cached>()
  const owned = new Map<string, Own>()
  const retiring = new Map<ReturnType<typeof setTimeout>, Own>()
  let feedback: ChannelFeedback | null = null

  async function cachedOf(clientId: string): Promise<Cached> {
    const at = performance.now()
    const cached = profiles.get(clientId)
    if (cached && at - cached.at < PROFILE_TTL_MS) return cached
    const fresh = { profile: await options.profileOf(clientId), at, routes: {} }
    profiles.set(clientId, fresh)
    return fresh
  }

  const close = (own: Own) => {
    void own.route.provider.close()
    if (own.route.smtp) options.dropped?.(own.route.smtp)
  }
  // Sends already handed to an old account end within the send deadline before it closes.
  function retire(own: Own) {
    const timer = setTimeout(() => {
      retiring.delete(timer)
      close(own)
    }, app.config.sendTimeoutMs)
    timer.unref()
    retiring.set(timer, own)
  }

  function ownRoute(profile: EffectiveProfile, channel: Channel): Route {
    const name = `${profile.clientId}/${channel}`
    const known = owned.get(name)
    // Each read of the profile (every PROFILE_TTL_MS while it sends) counts as a use.
    if (known && known.version === profile.version) {
      known.usedAt = performance.now()
      return known.route
    }
    if (known) {
      owned.delete(name)
      retire(known)
    }
    const settings = settingsOf(app, profile, channel)
    const kind = channel === 'email' ? profile.email.provider : profile.text[channel].provider
    feedback ??= options.feedback()
    const made = createProvider(kind, settings, feedback)
    // Its reports name the client, so that they are checked with the client's credentials.
    const provider: ChannelProvider = made.callback
      ? {
          ...made,
          callback: {
            ...made.callback,
            path: `${made.callback.path}?${CALLBACK_CLIENT_PARAM}=${encodeURIComponent(profile.clientId)}`,
          },
        }
      : made
    const smtp =
      kind === 'smtp'
        ? { key: `${profile.clientId}@${profile.version}`, url: settings.smtpUrl!, pool: settings.smtpPool }
        : null
    const own = {
      version: profile.version,
      route: { provider, own: true, smtp, limits: limitsOf(profile) },
      usedAt: performance.now(),
    }
    owned.set(name, own)
    return own.route
  }

  const sweep = setInterval(() => {
    const before = performance.now() - IDLE_CLOSE_MS
    for (const [name, own] of owned)
      if (own.usedAt < before) {
        owned.delete(name)
        close(own)
      }
    for (const [clientId, cached] of profiles) if (cached.at < before) profiles.delete(clientId)
  }, SWEEP_MS)
  sweep.unref()

  return {
    /** The provider of a client's message on `channel`, and the profile its limits come from. */
    async route(clientId: string, channel: Channel): Promise<Route> {
      const cached = await cachedOf(clientId)
      let route = cached.routes[channel]
      if (!route) {
        const { profile } = cached
        if (ownAccount(profile, channel)) route = ownRoute(profile, channel)
        else {
          const gone = owned.get(`${clientId}/${channel}`)
          if (gone) {
            owned.delete(`${clientId}/${channel}`)
            retire(gone) // the client went back to the instance's account
          }
          route = { provider: options.instance[channel], own: false, smtp: null, limits: limitsOf(profile) }
        }
        cached.routes[channel] = route
      }
      return route
    },
    /** Closes every client's account (the instance providers are the caller's). */
    async close(): Promise<void> {
      clearInterval(sweep)
      const all = [...owned.values(), ...retiring.values()]
      for (const timer of retiring.keys()) clearTimeout(timer)
      retiring.clear()
      owned.clear()
      await Promise.all(all.map((own) => own.route.provider.close()))
    },
  }
}
