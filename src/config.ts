// Flags > environment (HERALD_*) > defaults, validated once into a frozen object.
// A bad value throws ConfigError with one line naming the setting.

import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { Cron } from 'croner'
import { isPostgresUrl } from './db/dialect'
import { isScope, SCOPES } from './lib/scopes'

export class ConfigError extends Error {}

export type EmailProvider = 'capture' | 'smtp' | 'simulator'
export type ChannelProvider = 'capture' | 'twilio' | 'simulator'

export interface Config {
  readonly port: number
  readonly host: string
  readonly publicUrl: string
  readonly dataDir: string
  /** The PostgreSQL store (HERALD_DATABASE_URL); null: the SQLite file in dataDir. */
  readonly databaseUrl: string | null
  readonly secretKey: string | null
  readonly bootstrapApiKey: string | null
  readonly adminEmail: string
  readonly adminPassword: string | null
  readonly dnsServers: readonly string[]
  /** Proxies (addresses or CIDR ranges) besides loopback whose X-Forwarded-For is believed. */
  readonly trustedProxies: readonly string[]
  /** SPF mechanism senders must publish: `include:<host>` (HERALD_SPF_INCLUDE) … */
  readonly spfInclude: string | null
  /** … or `ip4:`/`ip6:<address>` (HERALD_SENDING_IP). */
  readonly sendingIp: string | null
  readonly webhookAllowPrivate: boolean
  /**
   * Hosts (`host` or `host:port`) besides `sns.<region>.amazonaws.com` an SNS message's
   * SigningCertURL may name (HERALD_SNS_CERT_HOSTS): a test's own signing certificate server.
   */
  readonly snsCertHosts: readonly string[]
  /** Delays before each webhook attempt in ms (HERALD_WEBHOOK_RETRY_SCHEDULE); null = the default. */
  readonly webhookRetrySchedule: readonly number[] | null
  /** Requests in flight to one webhook endpoint at once (HERALD_WEBHOOK_CONCURRENCY). */
  readonly webhookConcurrency: number
  readonly log: 'json' | 'pretty'
  /**
   * Bearer token GET /metrics requires (HERALD_METRICS_TOKEN), from any address; null = the
   * endpoint answers only direct loopback requests.
   */
  readonly metricsToken: string | null
  readonly smtpUrl: string | null
  readonly emailProvider: EmailProvider
  readonly smsProvider: ChannelProvider
  readonly voiceProvider: ChannelProvider
  readonly whatsappProvider: ChannelProvider
  readonly rcsProvider: ChannelProvider
  readonly twilioBaseUrl: string | null
  readonly twilioAccountSid: string | null
  readonly twilioAuthToken: string | null
  /** Default sender number (E.164) or Messaging Service SID for the twilio provider. */
  readonly twilioFrom: string | null
  readonly simulatorRates: string | null
  readonly sendRate: number | null
  readonly sendConcurrency: number
  readonly smtpPool: number
  /**
   * Worker threads composing and sending for providers that cost CPU per message (SMTP:
   * MIME, DKIM, the conversation); 0 keeps them on the main thread (HERALD_SEND_THREADS).
   */
  readonly sendThreads: number
  /** Longest a provider call may take before it counts as a retryable failure (ms). */
  readonly sendTimeoutMs: number
  /**
   * How long a claim holds its work (ms): after a crash, what the dead process held is taken
   * again once its lease runs out, never sooner, since another process may still be at it
   * (HERALD_SEND_LEASE_MS, HERALD_WEBHOOK_LEASE_MS, HERALD_IMPORT_LEASE_MS).
   */
  readonly sendLeaseMs: number
  readonly webhookLeaseMs: number
  readonly importLeaseMs: number
  /** SMTP: connection and greeting timeout (ms). */
  readonly smtpConnectTimeoutMs: number
  /** SMTP: silence on an open connection before it is closed (ms). */
  readonly smtpSocketTimeoutMs: number
  readonly domainThrottle: number | null
  /**
   * Per recipient domain per minute, overriding the defaults for the big mailbox providers
   * (HERALD_DOMAIN_THROTTLES, `gmail.com=600,yahoo.com=300`; src/queue/throttle.ts).
   */
  readonly domainThrottles: Readonly<Record<string, number>>
  /** The warm-up default of new sending domains (HERALD_WARMUP, default on; each domain may change its own). */
  readonly warmup: boolean
  readonly clientHourlyCap: number | null
  /** Domain of VERP bounce+/reply+ addresses and the mailto: unsubscribe (HERALD_INBOUND_DOMAIN). */
  readonly inboundDomain: string | null
  /** Port of the optional inbound SMTP listener (HERALD_INBOUND_SMTP_PORT); null = off. */
  readonly inboundSmtpPort: number | null
  /**
   * From address of capture/simulator mail from a client with no sender (HERALD_DEFAULT_FROM);
   * unset: no-reply@ the public URL's host when that is a domain name, else no-reply@herald.localhost.
   */
  readonly defaultFrom: string
  /**
   * Sign-in attempts (POST /admin/login) one client IP may make per minute (the per-IP bucket of
   * every unauthenticated endpoint; HERALD_LOGIN_RATE_PER_MINUTE, default 20).
   */
  readonly loginRatePerMinute: number
  /**
   * Milliseconds a segment count may take (create, update, the live estimate, the preview, the
   * refresh job) before it is stopped with a 422 (HERALD_SEGMENT_COUNT_MS, default 5000).
   */
  readonly segmentCountMs: number
  /**
   * Agent registration: HERALD_AGENT_AUTO_APPROVE=1 approves anonymous registrations
   * at once (evaluation only) for the default workspace, with the requested scopes ∩
   * HERALD_AGENT_ANONYMOUS_SCOPES (comma-separated; default every `*:read` scope).
   */
  readonly agentAutoApprove: boolean
  readonly agentAnonymousScopes: readonly string[]
  /** Trusted ID-JAG issuers, issuer → JWKS URL (HERALD_IDJAG_ISSUERS, `issuer=jwks_url,...`). */
  readonly idjagIssuers: Readonly<Record<string, string>>
  /**
   * External identity provider mode: bearer JWTs whose `iss` is this issuer are
   * verified against its JWKS and accepted like Herald's own access tokens
   * (HERALD_OAUTH_EXTERNAL_ISSUER and HERALD_OAUTH_EXTERNAL_JWKS_URL, both or neither).
   */
  readonly oauthExternalIssuer: string | null
  readonly oauthExternalJwksUrl: string | null
  /** The `aud` such a token must carry (HERALD_OAUTH_EXTERNAL_AUDIENCE); null = either resource URL. */
  readonly oauthExternalAudience: string | null
  /** Where the scheduled backup job writes (HERALD_BACKUP_DIR); null = no scheduled backups. */
  readonly backupDir: string | null
  /**
   * A directory every process of the instance reaches at the same path (HERALD_SHARED_DIR), for
   * uploads and the imports waiting on them; null = the data directory.
   */
  readonly sharedDir: string | null
  /** The backup job's cron pattern (HERALD_BACKUP_EVERY, default daily at 03:00). */
  readonly backupEvery: string
  /** Scheduled backups kept; older ones the job made are deleted (HERALD_BACKUP_KEEP, default 7). */
  readonly backupKeep: number
}

export type Flags = Partial<Record<'port' | 'host' | 'data', string>>
type Env = Record<string, string | undefined>

function int(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}

function optionalInt(name: string, raw: string | undefined, min: number, max: number): number | null {
  return raw === undefined || raw === '' || raw === 'off' ? null : int(name, raw, min, max)
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
  return raw as T
}

function bool(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false
  if (raw === '1' || raw === 'true') return true
  throw new ConfigError(`${name} must be 1/true or 0/false, got "${raw}"`)
}

function url(name: string, raw: string, protocols: readonly string[]): string {
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`)
  }
  if (!protocols.includes(parsed.protocol))
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`)
  return raw
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** `0,5s,5m,30m` → delays in ms: at least one, each a whole number with ms|s|m|h (ms when bare). */
function schedule(name: string, raw: string | undefined): readonly number[] | null {
  if (raw === undefined || raw.trim() === '') return null
  const out = raw.split(',').map((part) => {
    const m = /^(\d+)(ms|s|m|h)?$/.exec(part.trim())
    if (!m) throw new ConfigError(`${name} must be durations such as 0,5s,5m,2h, got "${part.trim()}"`)
    return Number(m[1]) * DURATION_UNITS[m[2] ?? 'ms']!
  })
  if (out.length > 50) throw new ConfigError(`${name} may list at most 50 attempts`)
  return Object.freeze(out)
}

/** A cron pattern croner accepts (seconds optional); a bad one stops start-up, not the job later. */
function cron(name: string, raw: string): string {
  try {
    new Cron(raw, { paused: true }).stop()
  } catch (err) {
    throw new ConfigError(`${name} must be a cron pattern such as "0 3 * * *": ${(err as Error).message}`)
  }
  return raw
}

const CHANNEL_PROVIDERS = ['capture', 'twilio', 'simulator'] as const

export function loadConfig(flags: Flags = {}, env: Env = process.env): Config {
  const pick = (flag: string | undefined, envName: string) => flag ?? env[envName]
  const port = int('port (HERALD_PORT)', pick(flags.port, 'HERALD_PORT') ?? '8080', 0, 65535)
  const host = pick(flags.host, 'HERALD_HOST') ?? '0.0.0.0'
  if (host.trim() === '') throw new ConfigError('host (HERALD_HOST) must not be empty')
  const linkHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host
  const publicUrl = url('HERALD_PUBLIC_URL', env.HERALD_PUBLIC_URL ?? `http://${linkHost}:${port}`, [
    'http:',
    'https:',
  ]).replace(/\/+$/, '')

  const secretKey = env.HERALD_SECRET_KEY ?? null
  if (secretKey !== null && !/^[0-9a-f]{64}$/i.test(secretKey))
    throw new ConfigError('HERALD_SECRET_KEY must be 64 hexadecimal characters (32 bytes)')

  const bootstrapApiKey = env.HERALD_BOOTSTRAP_API_KEY || null
  if (bootstrapApiKey !== null && !/^hrld_[0-9A-Za-z]{20,}$/.test(bootstrapApiKey))
    throw new ConfigError('HERALD_BOOTSTRAP_API_KEY must look like hrld_<at least 20 letters or digits>')

  const adminEmail = env.HERALD_ADMIN_EMAIL ?? 'admin@localhost'
  if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail))
    throw new ConfigError('HERALD_ADMIN_EMAIL must be an email address')
  const adminPassword = env.HERALD_ADMIN_PASSWORD || null
  if (adminPassword !== null && adminPassword.length < 8)
    throw new ConfigError('HERALD_ADMIN_PASSWORD must be at least 8 characters')

  const dnsServers = (env.HERALD_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const snsCertHosts = (env.HERALD_SNS_CERT_HOSTS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  for (const host of snsCertHosts)
    if (!/^(\[[0-9a-f:]+\]|[\w.-]+)(:\d{1,5})?$/i.test(host))
      throw new ConfigError(`HERALD_SNS_CERT_HOSTS entry "${host}" must be host or host:port`)
  const trustedProxies = (env.HERALD_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const entry of trustedProxies) {
    const [address, bits, extra] = entry.split('/')
    const family = isIP(address ?? '')
    const max = family === 6 ? 128 : 32
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))
    )
      throw new ConfigError(
        `HERALD_TRUSTED_PROXIES entry "${entry}" must be an IP address or a CIDR range (10.0.0.0/8, fd00::/8)`,
      )
  }
  for (const server of dnsServers)
    if (!/^(\[[0-9a-f:]+\]|[\w.-]+)(:\d{1,5})?$/i.test(server))
      throw new ConfigError(`HERALD_DNS_SERVERS entry "${server}" must be host or host:port`)

  const spfInclude = env.HERALD_SPF_INCLUDE?.trim().toLowerCase() || null
  if (
    spfInclude !== null &&
    !/^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(spfInclude)
  )
    throw new ConfigError(
      `HERALD_SPF_INCLUDE must be a host name such as spf.example.com, got "${spfInclude}"`,
    )
  const sendingIp = env.HERALD_SENDING_IP?.trim().toLowerCase() || null
  if (sendingIp !== null && isIP(sendingIp) === 0)
    throw new ConfigError(`HERALD_SENDING_IP must be an IPv4 or IPv6 address, got "${sendingIp}"`)

  const smtpUrl = env.HERALD_SMTP_URL
    ? url('HERALD_SMTP_URL', env.HERALD_SMTP_URL, ['smtp:', 'smtps:'])
    : null
  const twilioBaseUrl = env.HERALD_TWILIO_BASE_URL
    ? url('HERALD_TWILIO_BASE_URL', env.HERALD_TWILIO_BASE_URL, ['http:', 'https:'])
    : null
  const simulatorRates = env.HERALD_SIMULATOR_RATES || null
  if (simulatorRates !== null) {
    for (const part of simulatorRates.split(',')) {
      const [k, v] = part.split('=')
      if (!k || !['delivered', 'opened', 'clicked', 'bounced', 'replied'].includes(k.trim()))
        throw new ConfigError(`HERALD_SIMULATOR_RATES: unknown rate "${k ?? part}"`)
      const n = Number(v)
      if (v === undefined || Number.isNaN(n) || n < 0 || n > 1)
        throw new ConfigError(`HERALD_SIMULATOR_RATES: ${k} must be a number from 0 to 1`)
    }
  }

  const inboundDomain = env.HERALD_INBOUND_DOMAIN?.trim().toLowerCase() || null
  if (
    inboundDomain !== null &&
    !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9-]{1,63}$/.test(inboundDomain)
  )
    throw new ConfigError(
      `HERALD_INBOUND_DOMAIN must be a domain name such as mail.example.com, got "${inboundDomain}"`,
    )

  const defaultFrom = defaultFromAddress(env.HERALD_DEFAULT_FROM, publicUrl)

  const providers = {
    emailProvider: oneOf(
      'HERALD_EMAIL_PROVIDER',
      env.HERALD_EMAIL_PROVIDER ?? (smtpUrl ? 'smtp' : 'capture'),
      ['capture', 'smtp', 'simulator'] as const,
    ),
    smsProvider: oneOf('HERALD_SMS_PROVIDER', env.HERALD_SMS_PROVIDER ?? 'capture', CHANNEL_PROVIDERS),
    voiceProvider: oneOf('HERALD_VOICE_PROVIDER', env.HERALD_VOICE_PROVIDER ?? 'capture', CHANNEL_PROVIDERS),
    whatsappProvider: oneOf(
      'HERALD_WHATSAPP_PROVIDER',
      env.HERALD_WHATSAPP_PROVIDER ?? 'capture',
      CHANNEL_PROVIDERS,
    ),
    rcsProvider: oneOf('HERALD_RCS_PROVIDER', env.HERALD_RCS_PROVIDER ?? 'capture', CHANNEL_PROVIDERS),
  }
  if (providers.emailProvider === 'smtp' && !smtpUrl)
    throw new ConfigError('HERALD_EMAIL_PROVIDER=smtp needs HERALD_SMTP_URL (e.g. smtp://user:pass@host:587)')
  const twilioUser = Object.entries(providers).find(([, v]) => v === 'twilio')
  if (twilioUser)
    for (const name of ['HERALD_TWILIO_BASE_URL', 'HERALD_TWILIO_ACCOUNT_SID', 'HERALD_TWILIO_AUTH_TOKEN'])
      if (!env[name])
        throw new ConfigError(
          `${name} is required when a channel uses the twilio provider (${twilioUser[0].replace('Provider', '')})`,
        )

  const twilioFrom = env.HERALD_TWILIO_FROM?.trim() || null
  if (twilioFrom !== null && !/^(\+[1-9]\d{6,14}|MG[0-9a-f]{32}|whatsapp:\+[1-9]\d{6,14})$/i.test(twilioFrom))
    throw new ConfigError(
      `HERALD_TWILIO_FROM must be an E.164 number (+14155550100) or a Messaging Service SID (MG…), got "${twilioFrom}"`,
    )

  // Kept as written: a token's `iss` must equal it exactly (no trailing slash added or removed).
  const oauthExternalIssuer = env.HERALD_OAUTH_EXTERNAL_ISSUER?.trim()
    ? url('HERALD_OAUTH_EXTERNAL_ISSUER', env.HERALD_OAUTH_EXTERNAL_ISSUER.trim(), ['https:', 'http:'])
    : null
  const oauthExternalJwksUrl = env.HERALD_OAUTH_EXTERNAL_JWKS_URL?.trim()
    ? url('HERALD_OAUTH_EXTERNAL_JWKS_URL', env.HERALD_OAUTH_EXTERNAL_JWKS_URL.trim(), ['http:', 'https:'])
    : null
  if ((oauthExternalIssuer === null) !== (oauthExternalJwksUrl === null))
    throw new ConfigError(
      'HERALD_OAUTH_EXTERNAL_ISSUER and HERALD_OAUTH_EXTERNAL_JWKS_URL are set together (external identity provider mode) or not at all',
    )
  // Herald's own tokens are told from the provider's by `iss`: the two must differ.
  if (oauthExternalIssuer !== null && oauthExternalIssuer.replace(/\/+$/, '') === publicUrl)
    throw new ConfigError('HERALD_OAUTH_EXTERNAL_ISSUER must not be Herald itself (HERALD_PUBLIC_URL)')
  const oauthExternalAudience = env.HERALD_OAUTH_EXTERNAL_AUDIENCE?.trim() || null
  if (oauthExternalAudience !== null && oauthExternalIssuer === null)
    throw new ConfigError(
      'HERALD_OAUTH_EXTERNAL_AUDIENCE needs HERALD_OAUTH_EXTERNAL_ISSUER and HERALD_OAUTH_EXTERNAL_JWKS_URL',
    )

  // A URL that is not PostgreSQL's is refused rather than quietly running on SQLite.
  const databaseUrl = env.HERALD_DATABASE_URL?.trim() || null
  if (databaseUrl !== null && !isPostgresUrl(databaseUrl))
    throw new ConfigError('HERALD_DATABASE_URL must be a postgres:// or postgresql:// URL')
  const sendTimeoutMs = int('HERALD_SEND_TIMEOUT_MS', env.HERALD_SEND_TIMEOUT_MS ?? '30000', 100, 120_000)
  const sendLeaseMs = int('HERALD_SEND_LEASE_MS', env.HERALD_SEND_LEASE_MS ?? '300000', 1000, 86_400_000)
  // A lease that ends while its provider call may still run would let a second claim send again.
  if (sendLeaseMs <= sendTimeoutMs)
    throw new ConfigError(
      `HERALD_SEND_LEASE_MS (${sendLeaseMs}) must be longer than HERALD_SEND_TIMEOUT_MS (${sendTimeoutMs})`,
    )
  const webhookLeaseMs = int(
    'HERALD_WEBHOOK_LEASE_MS',
    env.HERALD_WEBHOOK_LEASE_MS ?? '600000',
    1000,
    86_400_000,
  )

  const config: Config = Object.freeze({
    port,
    host,
    publicUrl,
    dataDir: pick(flags.data, 'HERALD_DATA_DIR') ?? './herald-data',
    databaseUrl,
    secretKey,
    bootstrapApiKey,
    adminEmail,
    adminPassword,
    dnsServers: Object.freeze(dnsServers),
    trustedProxies: Object.freeze(trustedProxies),
    spfInclude,
    sendingIp,
    webhookAllowPrivate: bool('HERALD_WEBHOOK_ALLOW_PRIVATE', env.HERALD_WEBHOOK_ALLOW_PRIVATE),
    snsCertHosts: Object.freeze(snsCertHosts),
    webhookRetrySchedule: schedule('HERALD_WEBHOOK_RETRY_SCHEDULE', env.HERALD_WEBHOOK_RETRY_SCHEDULE),
    webhookConcurrency: int('HERALD_WEBHOOK_CONCURRENCY', env.HERALD_WEBHOOK_CONCURRENCY ?? '16', 1, 256),
    log: oneOf('HERALD_LOG', env.HERALD_LOG ?? 'json', ['json', 'pretty'] as const),
    metricsToken: env.HERALD_METRICS_TOKEN || null,
    smtpUrl,
    ...providers,
    twilioBaseUrl,
    twilioAccountSid: env.HERALD_TWILIO_ACCOUNT_SID || null,
    twilioAuthToken: env.HERALD_TWILIO_AUTH_TOKEN || null,
    twilioFrom,
    simulatorRates,
    sendRate: optionalInt('HERALD_SEND_RATE', env.HERALD_SEND_RATE, 1, 1_000_000),
    sendConcurrency: int('HERALD_SEND_CONCURRENCY', env.HERALD_SEND_CONCURRENCY ?? '8', 1, 256),
    smtpPool: int('HERALD_SMTP_POOL', env.HERALD_SMTP_POOL ?? '5', 1, 100),
    sendThreads: int('HERALD_SEND_THREADS', env.HERALD_SEND_THREADS ?? String(defaultSendThreads()), 0, 64),
    // Under the send lease: a call still running when its deadline passes is given up (a
    // retryable failure) while its message is still leased.
    sendTimeoutMs,
    sendLeaseMs,
    webhookLeaseMs,
    importLeaseMs: int('HERALD_IMPORT_LEASE_MS', env.HERALD_IMPORT_LEASE_MS ?? '60000', 1000, 86_400_000),
    smtpConnectTimeoutMs: int(
      'HERALD_SMTP_CONNECT_TIMEOUT_MS',
      env.HERALD_SMTP_CONNECT_TIMEOUT_MS ?? '10000',
      100,
      120_000,
    ),
    smtpSocketTimeoutMs: int(
      'HERALD_SMTP_SOCKET_TIMEOUT_MS',
      env.HERALD_SMTP_SOCKET_TIMEOUT_MS ?? '20000',
      100,
      120_000,
    ),
    domainThrottle: optionalInt('HERALD_DOMAIN_THROTTLE', env.HERALD_DOMAIN_THROTTLE, 1, 1_000_000),
    domainThrottles: domainLimits('HERALD_DOMAIN_THROTTLES', env.HERALD_DOMAIN_THROTTLES),
    warmup: oneOf('HERALD_WARMUP', env.HERALD_WARMUP ?? 'on', ['on', 'off'] as const) === 'on',
    clientHourlyCap: optionalInt('HERALD_CLIENT_HOURLY_CAP', env.HERALD_CLIENT_HOURLY_CAP, 1, 100_000_000),
    inboundDomain,
    inboundSmtpPort: optionalInt('HERALD_INBOUND_SMTP_PORT', env.HERALD_INBOUND_SMTP_PORT, 0, 65535),
    defaultFrom,
    loginRatePerMinute: int(
      'HERALD_LOGIN_RATE_PER_MINUTE',
      env.HERALD_LOGIN_RATE_PER_MINUTE ?? '20',
      1,
      100_000,
    ),
    segmentCountMs: int('HERALD_SEGMENT_COUNT_MS', env.HERALD_SEGMENT_COUNT_MS ?? '5000', 10, 600_000),
    agentAutoApprove: bool('HERALD_AGENT_AUTO_APPROVE', env.HERALD_AGENT_AUTO_APPROVE),
    agentAnonymousScopes: scopeList('HERALD_AGENT_ANONYMOUS_SCOPES', env.HERALD_AGENT_ANONYMOUS_SCOPES),
    idjagIssuers: issuerJwks('HERALD_IDJAG_ISSUERS', env.HERALD_IDJAG_ISSUERS),
    oauthExternalIssuer,
    oauthExternalJwksUrl,
    oauthExternalAudience,
    backupDir: env.HERALD_BACKUP_DIR?.trim() || null,
    sharedDir: env.HERALD_SHARED_DIR?.trim() || null,
    backupEvery: cron('HERALD_BACKUP_EVERY', env.HERALD_BACKUP_EVERY?.trim() || '0 3 * * *'),
    backupKeep: int('HERALD_BACKUP_KEEP', env.HERALD_BACKUP_KEEP ?? '7', 1, 10_000),
  })
  provenance.set(config, sourcesOf(flags, env))
  return config
}

/** Where a setting's value came from: a command-line flag, an environment variable, or the default. */
export interface SettingSource {
  readonly source: 'flag' | 'env' | 'default'
  /** The environment variable that sets it. */
  readonly env: string
  /** The command-line flag that sets it, if any. */
  readonly flag: string | null
}

// Recorded beside the config (not in it), so the frozen object and every reader stay as they were.
const provenance = new WeakMap<Config, Readonly<Record<string, SettingSource>>>()

/** The setting → environment variable (and flag) map, in the order the settings page lists them. */
export const SETTING_NAMES: Readonly<Record<keyof Config, { env: string; flag?: keyof Flags }>> = {
  port: { env: 'HERALD_PORT', flag: 'port' },
  host: { env: 'HERALD_HOST', flag: 'host' },
  publicUrl: { env: 'HERALD_PUBLIC_URL' },
  dataDir: { env: 'HERALD_DATA_DIR', flag: 'data' },
  databaseUrl: { env: 'HERALD_DATABASE_URL' },
  secretKey: { env: 'HERALD_SECRET_KEY' },
  bootstrapApiKey: { env: 'HERALD_BOOTSTRAP_API_KEY' },
  adminEmail: { env: 'HERALD_ADMIN_EMAIL' },
  adminPassword: { env: 'HERALD_ADMIN_PASSWORD' },
  dnsServers: { env: 'HERALD_DNS_SERVERS' },
  trustedProxies: { env: 'HERALD_TRUSTED_PROXIES' },
  spfInclude: { env: 'HERALD_SPF_INCLUDE' },
  sendingIp: { env: 'HERALD_SENDING_IP' },
  webhookAllowPrivate: { env: 'HERALD_WEBHOOK_ALLOW_PRIVATE' },
  snsCertHosts: { env: 'HERALD_SNS_CERT_HOSTS' },
  webhookRetrySchedule: { env: 'HERALD_WEBHOOK_RETRY_SCHEDULE' },
  webhookConcurrency: { env: 'HERALD_WEBHOOK_CONCURRENCY' },
  log: { env: 'HERALD_LOG' },
  metricsToken: { env: 'HERALD_METRICS_TOKEN' },
  smtpUrl: { env: 'HERALD_SMTP_URL' },
  emailProvider: { env: 'HERALD_EMAIL_PROVIDER' },
  smsProvider: { env: 'HERALD_SMS_PROVIDER' },
  voiceProvider: { env: 'HERALD_VOICE_PROVIDER' },
  whatsappProvider: { env: 'HERALD_WHATSAPP_PROVIDER' },
  rcsProvider: { env: 'HERALD_RCS_PROVIDER' },
  twilioBaseUrl: { env: 'HERALD_TWILIO_BASE_URL' },
  twilioAccountSid: { env: 'HERALD_TWILIO_ACCOUNT_SID' },
  twilioAuthToken: { env: 'HERALD_TWILIO_AUTH_TOKEN' },
  twilioFrom: { env: 'HERALD_TWILIO_FROM' },
  simulatorRates: { env: 'HERALD_SIMULATOR_RATES' },
  sendRate: { env: 'HERALD_SEND_RATE' },
  sendConcurrency: { env: 'HERALD_SEND_CONCURRENCY' },
  smtpPool: { env: 'HERALD_SMTP_POOL' },
  sendThreads: { env: 'HERALD_SEND_THREADS' },
  sendTimeoutMs: { env: 'HERALD_SEND_TIMEOUT_MS' },
  sendLeaseMs: { env: 'HERALD_SEND_LEASE_MS' },
  webhookLeaseMs: { env: 'HERALD_WEBHOOK_LEASE_MS' },
  importLeaseMs: { env: 'HERALD_IMPORT_LEASE_MS' },
  smtpConnectTimeoutMs: { env: 'HERALD_SMTP_CONNECT_TIMEOUT_MS' },
  smtpSocketTimeoutMs: { env: 'HERALD_SMTP_SOCKET_TIMEOUT_MS' },
  domainThrottle: { env: 'HERALD_DOMAIN_THROTTLE' },
  domainThrottles: { env: 'HERALD_DOMAIN_THROTTLES' },
  warmup: { env: 'HERALD_WARMUP' },
  clientHourlyCap: { env: 'HERALD_CLIENT_HOURLY_CAP' },
  inboundDomain: { env: 'HERALD_INBOUND_DOMAIN' },
  inboundSmtpPort: { env: 'HERALD_INBOUND_SMTP_PORT' },
  defaultFrom: { env: 'HERALD_DEFAULT_FROM' },
  loginRatePerMinute: { env: 'HERALD_LOGIN_RATE_PER_MINUTE' },
  segmentCountMs: { env: 'HERALD_SEGMENT_COUNT_MS' },
  agentAutoApprove: { env: 'HERALD_AGENT_AUTO_APPROVE' },
  agentAnonymousScopes: { env: 'HERALD_AGENT_ANONYMOUS_SCOPES' },
  idjagIssuers: { env: 'HERALD_IDJAG_ISSUERS' },
  oauthExternalIssuer: { env: 'HERALD_OAUTH_EXTERNAL_ISSUER' },
  oauthExternalJwksUrl: { env: 'HERALD_OAUTH_EXTERNAL_JWKS_URL' },
  oauthExternalAudience: { env: 'HERALD_OAUTH_EXTERNAL_AUDIENCE' },
  backupDir: { env: 'HERALD_BACKUP_DIR' },
  sharedDir: { env: 'HERALD_SHARED_DIR' },
  backupEvery: { env: 'HERALD_BACKUP_EVERY' },
  backupKeep: { env: 'HERALD_BACKUP_KEEP' },
}

/** The same precedence as loadConfig: a flag, else a non-empty environment variable, else the default. */
function sourcesOf(flags: Flags, env: Env): Record<string, SettingSource> {
  const out: Record<string, SettingSource> = {}
  for (const [key, names] of Object.entries(SETTING_NAMES)) {
    const flag = names.flag ?? null
    const source =
      flag && flags[flag] !== undefined ? 'flag' : (env[names.env] ?? '') !== '' ? 'env' : 'default'
    out[key] = { source, env: names.env, flag: flag ? `--${flag}` : null }
  }
  return out
}

/** Where each setting of a config made by loadConfig came from (null for one built otherwise). */
export const configSources = (config: Config) => provenance.get(config) ?? null

/** Comma-separated scope names; unset = every `*:read` scope. An unknown name is a start-up error. */
function scopeList(name: string, raw: string | undefined): readonly string[] {
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (names.length === 0) return SCOPES.filter((s) => s.endsWith(':read'))
  for (const n of names) if (!isScope(n)) throw new ConfigError(`${name}: unknown scope "${n}"`)
  return [...new Set(names)]
}

/** `issuer=jwks_url,issuer=jwks_url`: the issuer as the `iss` claim reads, its JWKS over http(s). */
function issuerJwks(name: string, raw: string | undefined): Readonly<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const part of (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    // Split at the first '=': an issuer URL carries none, a JWKS URL's query may.
    const at = part.indexOf('=')
    if (at <= 0) throw new ConfigError(`${name}: expected issuer=jwks_url, got "${part}"`)
    out[part.slice(0, at).trim()] = url(name, part.slice(at + 1).trim(), ['http:', 'https:'])
  }
  return out
}

/** `domain=N,domain=N`: per-minute limits by recipient domain. */
function domainLimits(name: string, raw: string | undefined): Readonly<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const part of (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=')
    const domain = part.slice(0, eq).trim().toLowerCase()
    if (eq < 1 || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(domain))
      throw new ConfigError(`${name} must be domain=N pairs separated by commas, got "${part}"`)
    out[domain] = int(name, part.slice(eq + 1).trim(), 1, 1_000_000)
  }
  return Object.freeze(out)
}

/**
 * One send thread per two cores: the main thread only claims and records (a few per cent of a
 * core), and a thread's RSA signatures (about half the CPU of a message) run on Bun's crypto
 * pool, which uses every core; one thread composes and talks SMTP for ~2,000 messages/s.
 */
function defaultSendThreads(): number {
  return Math.max(1, Math.min(8, Math.floor(availableParallelism() / 2)))
}

const DOMAIN_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * HERALD_DEFAULT_FROM, else no-reply@ the public URL's host when it is a domain name (not an IP
 * address, localhost or a single label), else no-reply@herald.localhost (a reserved name that
 * reads as a domain and can never route anywhere).
 */
function defaultFromAddress(raw: string | undefined, publicUrl: string): string {
  const set = raw?.trim()
  if (set) {
    const at = set.lastIndexOf('@')
    const local = set.slice(0, at)
    const domain = set.slice(at + 1).toLowerCase()
    if (at < 1 || !/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/.test(local) || !DOMAIN_NAME.test(domain))
      throw new ConfigError(
        `HERALD_DEFAULT_FROM must be an email address such as news@example.com, got "${set}"`,
      )
    return `${local}@${domain}`
  }
  const host = new URL(publicUrl).hostname.toLowerCase()
  const local = host === 'localhost' || host.endsWith('.localhost') || !DOMAIN_NAME.test(host)
  return `no-reply@${local ? 'herald.localhost' : host}`
}

/**
 * Where uploads are spooled and imports keep their file until they have run: HERALD_SHARED_DIR
 * when set (another process may take over an import whose process died), else the data directory.
 */
export const filesDirOf = (config: Pick<Config, 'dataDir' | 'sharedDir'>) =>
  config.sharedDir ?? config.dataDir
