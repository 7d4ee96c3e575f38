// The portal's cookies: the session (`herald_session`) and, before sign-in, the login form's
// CSRF cookie (`herald_login`, double-submit: a cross-site page cannot read or set it).

export const SESSION_COOKIE = 'herald_session'
export const LOGIN_COOKIE = 'herald_login'

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim())
  }
  return null
}

export function cookie(
  name: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds: number; path?: string },
): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? '/admin'}`,
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
  ]
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}
