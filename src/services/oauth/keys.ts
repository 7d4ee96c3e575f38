import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto'
import { desc } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { OAUTH_KEY_LOCK } from '../../db/postgres/lock-keys'
import { oauthSigningKeys } from '../../db/schema'
import { inAnyTransaction, inTransaction } from '../../db/transaction'
import { holdWorkLock } from '../../db/work-lock'
import { decryptSecret, encryptSecret } from '../../lib/crypto'

// Herald's own signing key for access tokens: Ed25519 (JWS `EdDSA`), generated on
// first use and kept in the database with its private half encrypted by the instance secret key,
// so backups carry it and every process of the instance signs with the same key. Signing and
// verifying use node:crypto synchronously: a bearer token is checked on the request path, which
// is synchronous like the API-key look-up (jose's API is async); the tests verify our tokens
// with jose against /oauth2/jwks.

interface KeySet {
  kid: string
  privateKey: KeyObject
  publicKeys: Map<string, KeyObject>
  jwks: { keys: Record<string, string>[] }
}

const loaded = new WeakMap<AppContext['db'], KeySet>()
/** When each process last read the keys again for a `kid` it did not know. */
const reread = new WeakMap<AppContext['db'], number>()
/**
 * A token naming a key this process has not loaded (another process made it) reads the keys again,
 * at most once this often: a stream of made-up `kid`s costs one read a second.
 */
const REREAD_MS = 1_000

/** RFC 7638 thumbprint of an OKP key: the `kid`. */
function thumbprint(jwk: { crv: string; x: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: 'OKP', x: jwk.x }))
    .digest('base64url')
}

async function readKeys(app: AppContext): Promise<KeySet | null> {
  const rows = await app.db.select().from(oauthSigningKeys).orderBy(desc(oauthSigningKeys.createdAt))
  const newest = rows[0]
  if (!newest) return null
  const publicKeys = new Map<string, KeyObject>()
  for (const r of rows) publicKeys.set(r.id, createPublicKey({ key: r.publicJwk, format: 'jwk' }))
  return {
    kid: newest.id,
    privateKey: createPrivateKey(decryptSecret(app.secretKey, newest.privateKey)),
    publicKeys,
    jwks: { keys: rows.map((r) => ({ ...r.publicJwk, kid: r.id, alg: r.alg, use: 'sig' })) },
  }
}

/** The instance's keys, generating the first one (once, whichever process gets there first). */
export async function signingKeys(app: AppContext): Promise<KeySet> {
  const cached = loaded.get(app.db)
  if (cached) return cached
  const read = await readKeys(app)
  // Kept only when read outside a transaction: one may see a key it made itself and may still
  // roll back. (Tokens are signed in their grant's transaction, and read the keys each time.)
  if (read) {
    if (!inAnyTransaction(app.sqlite)) loaded.set(app.db, read)
    return read
  }
  return await inTransaction(app.sqlite, async () => {
    // Another process making the first key at the same moment: wait for it, then use its key.
    await holdWorkLock(app.db, OAUTH_KEY_LOCK, 'signing')
    const again = await readKeys(app)
    if (again) return again
    const pair = generateKeyPairSync('ed25519')
    const jwk = pair.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string }
    const pem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string
    await app.db.insert(oauthSigningKeys).values({
      id: thumbprint(jwk),
      alg: 'EdDSA',
      publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
      privateKey: encryptSecret(app.secretKey, pem),
      createdAt: app.clock.now(),
    })
    return (await readKeys(app))!
  })
}

export async function jwks(app: AppContext) {
  return (await signingKeys(app)).jwks
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A compact JWS (EdDSA) of `claims` with the newest key. */
export async function signJwt(
  app: AppContext,
  claims: Record<string, unknown>,
  typ = 'at+jwt',
): Promise<string> {
  const keys = await signingKeys(app)
  const input = `${b64({ alg: 'EdDSA', typ, kid: keys.kid })}.${b64(claims)}`
  return `${input}.${sign(null, Buffer.from(input), keys.privateKey).toString('base64url')}`
}

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/** Does it look like a JWT at all (three base64url parts)? */
export const looksLikeJwt = (token: string) => JWT_RE.test(token)

/**
 * The claims of a JWT signed by one of our keys with the expected `typ`, or null (bad shape,
 * unknown key, other algorithm, bad signature). Expiry and the rest are the caller's to check.
 */
export async function verifyJwt(
  app: AppContext,
  token: string,
  typ = 'at+jwt',
): Promise<Record<string, unknown> | null> {
  if (!looksLikeJwt(token)) return null
  const [h, p, s] = token.split('.') as [string, string, string]
  let header: Record<string, unknown>
  let claims: Record<string, unknown>
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString())
    claims = JSON.parse(Buffer.from(p, 'base64url').toString())
  } catch {
    return null
  }
  if (header.alg !== 'EdDSA' || header.typ !== typ || typeof header.kid !== 'string') return null
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return null
  let key = (await signingKeys(app)).publicKeys.get(header.kid)
  const now = app.clock.now()
  if (!key && now - (reread.get(app.db) ?? 0) >= REREAD_MS) {
    reread.set(app.db, now)
    loaded.delete(app.db)
    key = (await signingKeys(app)).publicKeys.get(header.kid)
  }
  if (!key) return null
  const ok = verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))
  return ok ? claims : null
}
