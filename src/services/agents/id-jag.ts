import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose'
import { JWKS_ALGORITHMS } from '../../lib/jwks-algorithms'
import { JwksUnavailable, remoteKeySet } from '../oauth/external-keys'

// Identity Assertion JWT Authorization Grants (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant):
// a JWT with header `typ: oauth-id-jag+jwt`, issued by an identity provider the operator trusts
// (HERALD_IDJAG_ISSUERS, issuer → JWKS URL), whose `aud` is Herald's own issuer. Agent claim
// (/agent/auth/claim) and the OAuth JWT-bearer grant both verify assertions here; each door maps
// an IdJagError to its own answer (REST 401, OAuth invalid_grant).

export const ID_JAG_TYP = 'oauth-id-jag+jwt'
/** The token type the spec names for assertions in `identity_assertion` (RFC 8693 style). */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag'

/**
 * The longest an assertion may live: `exp` at most this long after `iat`, and after the time it
 * is judged at. A spent assertion's `jti` is kept until its `exp`, so the cap bounds the replay
 * store; an ID-JAG is meant to be exchanged at once (the draft's examples live 5 minutes).
 */
export const ID_JAG_MAX_LIFETIME_S = 3600
/** Clock skew tolerated on exp/nbf when the caller names none. */
export const ID_JAG_CLOCK_TOLERANCE_S = 30

export type IdJagFailure =
  | 'malformed'
  | 'wrong_type'
  | 'untrusted_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'bad_signature'
  | 'jwks_unavailable'
  | 'invalid_claims'
  | 'replayed'

export class IdJagError extends Error {
  constructor(
    readonly reason: IdJagFailure,
    message: string,
  ) {
    super(message)
  }
}

/** A verified assertion: who (issuer + subject) and what the issuer says about the grant. */
export interface IdJag {
  readonly issuer: string
  readonly subject: string
  /** The OAuth client the assertion was issued to (`client_id` claim), if named. */
  readonly clientId: string | null
  /** Scopes granted by the issuer (`scope` claim, space-separated), null when absent. */
  readonly scopes: readonly string[] | null
  /** The resource server's tenant (`aud_tenant`): for Herald, a client (workspace) id. */
  readonly audTenant: string | null
  readonly email: string | null
  /** Required: with the issuer, the key of the replay store (./id-jag-replay.ts). */
  readonly jti: string
  /** `exp` in ms. */
  readonly expiresAt: number
  readonly claims: JWTPayload
}

export interface VerifyIdJagOptions {
  /** Herald's issuer (its public URL); `aud` must name it. */
  readonly audience: string
  /** issuer → JWKS URL. */
  readonly trustedIssuers: Readonly<Record<string, string>>
  /** The injected clock's now (ms): `exp`/`nbf`/`iat` are judged against it. */
  readonly now: number
  /** Seconds of clock skew tolerated on exp/nbf (default 30). */
  readonly clockToleranceSeconds?: number
}

// One key set per JWKS URL for the process, as for the external identity provider
// (../oauth/external-keys.ts): cached and refetched on an unknown `kid` (with a cooldown) on the
// injected clock, so a rotating issuer keeps working without a restart.
const keySets = new Map<string, (now: number) => JWTVerifyGetKey>()
function keySetOf(jwksUrl: string, now: number): JWTVerifyGetKey {
  let set = keySets.get(jwksUrl)
  if (!set) {
    set = remoteKeySet(jwksUrl)
    keySets.set(jwksUrl, set)
  }
  return set(now)
}

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null)

/**
 * Verifies an ID-JAG: its type, that its issuer is trusted, its signature against that issuer's
 * JWKS, that `aud` names our issuer, and its lifetime. Throws IdJagError naming what failed.
 */
export async function verifyIdJag(assertion: string, options: VerifyIdJagOptions): Promise<IdJag> {
  let issuer: string | null
  try {
    const header = decodeProtectedHeader(assertion)
    if (header.typ?.toLowerCase() !== ID_JAG_TYP)
      throw new IdJagError('wrong_type', `The assertion's typ must be ${ID_JAG_TYP}`)
    issuer = str(decodeJwt(assertion).iss)
  } catch (err) {
    if (err instanceof IdJagError) throw err
    throw new IdJagError('malformed', 'The assertion is not a JWT')
  }
  // Looked up before any fetch: an untrusted issuer never makes Herald call a URL.
  const jwksUrl = issuer ? options.trustedIssuers[issuer] : undefined
  if (!issuer || !jwksUrl)
    throw new IdJagError('untrusted_issuer', 'The assertion comes from an untrusted issuer')

  const tolerance = options.clockToleranceSeconds ?? ID_JAG_CLOCK_TOLERANCE_S
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(assertion, keySetOf(jwksUrl, options.now), {
      issuer,
      audience: options.audience,
      typ: ID_JAG_TYP,
      currentDate: new Date(options.now),
      clockTolerance: tolerance,
      requiredClaims: ['sub', 'exp', 'iat'],
      algorithms: [...JWKS_ALGORITHMS],
    }))
  } catch (err) {
    throw mapJoseError(err)
  }
  const subject = str(payload.sub)
  if (!subject) throw new IdJagError('invalid_claims', 'The assertion has no subject')
  const jti = str(payload.jti)
  if (!jti)
    throw new IdJagError('invalid_claims', 'The assertion has no jti claim (a non-empty string, required)')
  // jose has checked exp and iat are numbers. A long-lived assertion would have to be
  // remembered as long to refuse its replay: refused instead.
  const exp = payload.exp as number
  if (
    exp - (payload.iat as number) > ID_JAG_MAX_LIFETIME_S ||
    exp * 1000 > options.now + (ID_JAG_MAX_LIFETIME_S + tolerance) * 1000
  )
    throw new IdJagError(
      'invalid_claims',
      `The assertion lives too long: its exp may be at most ${ID_JAG_MAX_LIFETIME_S / 60} minutes after iat and after now`,
    )
  const scope = str(payload.scope)
  return {
    issuer,
    subject,
    clientId: str(payload.client_id),
    scopes: scope ? scope.split(' ').filter(Boolean) : null,
    audTenant: str(payload.aud_tenant),
    email: str(payload.email),
    jti,
    expiresAt: exp * 1000,
    claims: payload,
  }
}

function mapJoseError(err: unknown): IdJagError {
  if (err instanceof IdJagError) return err
  if (err instanceof errors.JWTExpired) return new IdJagError('expired', 'The assertion has expired')
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud')
      return new IdJagError('wrong_audience', "The assertion's audience is not this server")
    if (err.reason === 'missing')
      return new IdJagError('invalid_claims', `The assertion has no ${err.claim} claim (required)`)
    if (err.claim === 'nbf' || err.claim === 'iat')
      return new IdJagError('not_yet_valid', 'The assertion is not valid yet')
    return new IdJagError('invalid_claims', `The assertion's ${err.claim} claim is invalid`)
  }
  if (err instanceof JwksUnavailable)
    return new IdJagError('jwks_unavailable', "The issuer's keys could not be fetched")
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey)
    return new IdJagError('bad_signature', 'The assertion is not signed by its issuer')
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new IdJagError('bad_signature', 'The assertion uses an algorithm that is not accepted')
  return new IdJagError('malformed', 'The assertion could not be verified')
}
