import { isPlainObject } from './plain-object'

// A secret shown once (a new API key, a webhook or OAuth client secret, a generated password)
// must not be kept anywhere an answer is stored for replay: the stored copy names the secret's
// kind and nothing of its value.

const MASK = '••••••••'

/** `hrld_…` → `hrld_••••••••`: the kind of secret (its prefix up to `_`) stays readable. */
export function maskSecret(value: string): string {
  const kind = /^[A-Za-z]{1,16}_/.exec(value)?.[0] ?? ''
  return kind + MASK
}

/** A copy of `result` with each named member that holds a string masked; anything else as it is. */
export function maskSecretMembers<T>(result: T, members: readonly string[]): T {
  if (!isPlainObject(result)) return result
  const masked: Record<string, unknown> = { ...result }
  for (const name of members) {
    const value = masked[name]
    if (typeof value === 'string' && value !== '') masked[name] = maskSecret(value)
  }
  return masked as T
}
