/**
 * The JWS algorithms accepted on a token verified against someone else's JWKS (an ID-JAG
 * issuer, an external identity provider): asymmetric only. `none` and HMAC are refused: a JWKS
 * holds public keys, and an HMAC "key" taken from one would let anyone sign.
 */
export const JWKS_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]
