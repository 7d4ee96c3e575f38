import { afterAll } from 'bun:test'
import { exportJWK, generateKeyPair } from 'jose'

// An identity provider for the ID-JAG tests: one ES256 key pair (kid k1) and a local HTTP server
// publishing its public key as a JWKS, stopped after the file's tests. Tests sign assertions with
// `privateKey` and trust the issuer with `${jwksUrl}` in HERALD_IDJAG_ISSUERS. The URL's path is
// unique to this server: key sets are cached per URL for the process, and a later test file may
// be given the same port.

export async function serveIdpKeys(): Promise<{ privateKey: CryptoKey; jwksUrl: string }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] }
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json(jwks) })
  afterAll(() => server.stop(true))
  return { privateKey, jwksUrl: `http://127.0.0.1:${server.port}/${crypto.randomUUID()}/jwks` }
}
