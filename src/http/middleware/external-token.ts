import type { AppContext } from '../../context'
import { externalTokens } from '../../services/oauth/external'
import { presentedCredential } from './auth'

// External identity provider mode: the provider's keys are fetched over the network
// and jose verifies asynchronously, while a request's credential is admitted synchronously
// (admitCredential, on REST and MCP alike). This hook runs before routing and awaits the
// verification of a bearer token that names the provider, so the one authenticator finds its
// outcome ready (src/services/oauth/external.ts). It decides nothing itself.

/** The onRequest hook, or null when the mode is off (nothing added to any request then). */
export function externalTokenHook(app: AppContext) {
  const external = externalTokens(app)
  if (!external) return null
  return async ({ request }: { request: Request }): Promise<void> => {
    const { token } = presentedCredential(request)
    if (token !== null && external.owns(token)) await external.prepare(token)
  }
}
