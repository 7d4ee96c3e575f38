import type { AppContext } from '../../context'
import { createSession } from '../../services/portal-auth/sessions'
import { cookie, SESSION_COOKIE } from './cookies'

// Starting a session and the cookie that carries it: at sign-in, and again after a password
// change (which ends every session of the user).

export const isSecure = (app: AppContext) => app.config.publicUrl.startsWith('https:')

/**
 * Path=/ rather than /admin: the OAuth consent page (/oauth2/authorize) signs in with the same
 * session. Nothing else reads the cookie (the API takes only keys and tokens).
 */
export function sessionCookie(app: AppContext, value: string, maxAgeMs: number): string {
  return cookie(SESSION_COOKIE, value, { secure: isSecure(app), maxAgeSeconds: maxAgeMs / 1000, path: '/' })
}

/** A new session for the user and its Set-Cookie header value. */
export async function startSession(
  app: AppContext,
  userId: string,
  workspaceId: string | null,
): Promise<string> {
  const created = await createSession(app, userId, workspaceId)
  return sessionCookie(app, created.token, created.expiresAt - app.clock.now())
}
