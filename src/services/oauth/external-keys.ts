import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose'

// Someone else's public keys (a JWKS: the external identity provider's, a trusted ID-JAG
// issuer's), for jose's jwtVerify. jose's own createRemoteJWKSet times its cache and its refetch
// cooldown on the wall clock; this one times them on Herald's injected clock (the `now` each
// verification passes), so a key rotation (a token with a new `kid`) is picked up without a
// restart and tests can drive it without waiting.

/** Keys are refetched when older than this, whatever tokens come. */
export const JWKS_MAX_AGE_MS = 10 * 60_000
/**
 * A token naming a `kid` the keys lack refetches them at most this often: a rotated key is found
 * within this long, and tokens with made-up `kid`s cannot make Herald call the provider per request.
 */
export const JWKS_COOLDOWN_MS = 30_000
const FETCH_TIMEOUT_MS = 5000

/** The provider's JWKS could not be fetched or is not a key set (connection refused, timeout, 5xx). */
export class JwksUnavailable extends Error {}

/** The key set of `url`; call it with the time a verification is judged at for jose's key getter. */
export function remoteKeySet(url: string): (now: number) => JWTVerifyGetKey {
  let keys: JWTVerifyGetKey | null = null
  let fetchedAt = 0
  // Concurrent requests that need a fetch share one.
  let pending: Promise<void> | null = null

  const reload = (now: number): Promise<void> => {
    pending ??= (async () => {
      try {
        // No redirects followed: the operator names the JWKS URL itself (as jose does).
        const res = await fetch(url, {
          headers: { accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        })
        if (res.status !== 200) throw new JwksUnavailable(`the JWKS answered HTTP ${res.status}`)
        keys = createLocalJWKSet(await res.json())
        fetchedAt = now
      } catch (err) {
        throw err instanceof JwksUnavailable ? err : new JwksUnavailable(String(err))
      } finally {
        pending = null
      }
    })()
    return pending
  }

  return (now) => async (header, token) => {
    if (keys === null || now - fetchedAt >= JWKS_MAX_AGE_MS) {
      try {
        await reload(now)
      } catch (err) {
        // Keys a little stale beat no keys while the provider is briefly down.
        if (keys === null) throw err
      }
    }
    try {
      return await keys!(header, token)
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || now - fetchedAt < JWKS_COOLDOWN_MS) throw err
      await reload(now)
      return keys!(header, token)
    }
  }
}
