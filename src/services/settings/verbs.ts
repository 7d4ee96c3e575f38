import { type Config, configSources, SETTING_NAMES } from '../../config'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'

// The instance configuration, read-only, for the portal's settings page (portal-only: no REST
// operation is named for it). Owners and admins (admin:*). Secrets are masked here, so no door
// can show them.

const SECRET: ReadonlySet<keyof Config> = new Set([
  'secretKey',
  'bootstrapApiKey',
  'adminPassword',
  'twilioAuthToken',
])

/** A URL's password (smtp://user:pass@host) is a secret inside a setting that is not. */
function maskUrl(value: string): string {
  try {
    const u = new URL(value)
    if (u.password) u.password = '********'
    return u.toString()
  } catch {
    return value
  }
}

function show(key: keyof Config, value: unknown): { value: string; set: boolean } {
  // Unset, the key is the one generated into the data directory on first start (src/db/data-dir.ts).
  if (key === 'secretKey' && value === null) return { value: 'the key file in the data directory', set: true }
  if (value === null || value === undefined) return { value: '', set: false }
  if (SECRET.has(key)) return { value: '******** (set)', set: true }
  if (key === 'smtpUrl' || key === 'twilioBaseUrl' || key === 'databaseUrl')
    return { value: maskUrl(String(value)), set: true }
  if (Array.isArray(value)) return { value: value.join(', '), set: true }
  if (typeof value === 'object')
    return {
      value: Object.entries(value)
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
      set: true,
    }
  return { value: String(value), set: true }
}

export const getSettingsVerb = defineVerb({
  name: 'settings.get',
  scope: 'admin:*',
  input: NoInput,
  mutates: false,
  run: (ctx) => {
    const sources = configSources(ctx.config)
    return (Object.keys(SETTING_NAMES) as (keyof Config)[]).map((key) => {
      const s = sources?.[key]
      return {
        key,
        env: SETTING_NAMES[key].env,
        flag: s?.flag ?? null,
        source: s?.source ?? 'unknown',
        secret: SECRET.has(key),
        ...show(key, ctx.config[key]),
      }
    })
  },
})
