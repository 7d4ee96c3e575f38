/** Every scope of the spec is valid from the start, even for features built later. */
export const SCOPES = [
  'campaigns:read',
  'campaigns:write',
  'campaigns:launch',
  'contacts:read',
  'contacts:write',
  'journeys:read',
  'journeys:write',
  'sequences:read',
  'sequences:write',
  'templates:read',
  'templates:write',
  'lists:read',
  'lists:write',
  'analytics:read',
  'domains:read',
  'senders:read',
  'replies:read',
  'compliance:read',
  'admin:*',
] as const

export type Scope = (typeof SCOPES)[number]

/** The subset the OAuth flows advertise (the spec's Scopes section); never `admin:*`. */
export const OAUTH_SCOPES = [
  'campaigns:read',
  'campaigns:write',
  'campaigns:launch',
  'contacts:read',
  'contacts:write',
  'journeys:read',
  'journeys:write',
  'analytics:read',
  'lists:write',
  'templates:write',
  'compliance:read',
] as const satisfies readonly Scope[]

export const ADMIN_SCOPE: Scope = 'admin:*'

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** `admin:*` grants every scope. */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  return granted.includes(ADMIN_SCOPE) || granted.includes(required)
}
