import { expect, test } from 'bun:test'
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { OAUTH_KEY_LOCK } from '../../../src/db/postgres/lock-keys'
import { oauthSigningKeys } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { encryptSecret } from '../../../src/lib/crypto'
import { silentLogger } from '../../../src/lib/log'
import { signingKeys, signJwt, verifyJwt } from '../../../src/services/oauth/keys'
import { BASE, createTestApp } from '../../helpers/app'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'
import { rowsOf, runSql } from '../../helpers/raw-sql'
import { scratchDirs } from '../../helpers/temp-dir'

// The instance's OAuth signing key is one for every process: the first is made once however many
// processes issue a token at the same moment, a key made in a transaction that rolled back is
// not used, and a token signed with a key this process has not loaded (another process made it)
// still verifies.

const t = await createTestApp()
const tempDir = scratchDirs()
const kids = async () =>
  (await rowsOf<{ id: string }>(t, sql`SELECT id FROM oauth_signing_keys ORDER BY created_at`)).map(
    (r) => r.id,
  )
const kidOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string
const clearKeys = () => runSql(t, sql`DELETE FROM oauth_signing_keys`)

/** A new Ed25519 key pair as the keys table holds one, and its private half. */
function newKey() {
  const pair = generateKeyPairSync('ed25519')
  const jwk = pair.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string }
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: 'OKP', x: jwk.x }))
    .digest('base64url')
  const pem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string
  return { kid, jwk, pem, privateKey: pair.privateKey }
}

test('a key made in a transaction that rolled back is not used afterwards', async () => {
  await clearKeys()
  await expect(
    inTransaction(t.ctx.sqlite, async () => {
      await signJwt(t.ctx, { sub: 'first' })
      throw new Error('the grant failed')
    }),
  ).rejects.toThrow('the grant failed')
  expect(await kids()).toEqual([])
  const token = await signJwt(t.ctx, { sub: 'second' })
  expect(await kids()).toEqual([kidOf(token)])
  expect(await verifyJwt(t.ctx, token)).toMatchObject({ sub: 'second' })
})

test('a token signed with a key this process has not loaded yet verifies', async () => {
  const known = await signingKeys(t.ctx)
  // Another process's key (a second key, as an instance may have): newer, not loaded here.
  const other = newKey()
  await t.ctx.db.insert(oauthSigningKeys).values({
    id: other.kid,
    alg: 'EdDSA',
    publicJwk: { kty: other.jwk.kty, crv: other.jwk.crv, x: other.jwk.x },
    privateKey: encryptSecret(t.ctx.secretKey, other.pem),
    createdAt: t.ctx.clock.now() + 1,
  })
  expect(known.publicKeys.has(other.kid)).toBe(false)
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const input = `${b64({ alg: 'EdDSA', typ: 'at+jwt', kid: other.kid })}.${b64({ sub: 'elsewhere' })}`
  const token = `${input}.${sign(null, Buffer.from(input), other.privateKey).toString('base64url')}`
  expect(await verifyJwt(t.ctx, token)).toMatchObject({ sub: 'elsewhere' })
  // A made-up key id is still refused.
  const forged = `${b64({ alg: 'EdDSA', typ: 'at+jwt', kid: 'no-such-key' })}.${b64({ sub: 'x' })}.${token.split('.')[2]}`
  expect(await verifyJwt(t.ctx, forged)).toBeNull()
})

test.if(DIALECT === 'postgres')(
  'while another process makes the first key, this one waits and signs with it',
  async () => {
    await clearKeys()
    // Another process on the same database and secret key, that has loaded no key yet.
    const fresh = await createAppContext(
      loadConfig(
        { data: tempDir('herald-keys-') },
        {
          HERALD_PUBLIC_URL: BASE,
          HERALD_DATABASE_URL: t.ctx.config.databaseUrl!,
          HERALD_SECRET_KEY: Buffer.from(t.ctx.secretKey).toString('hex'),
        },
      ),
      { log: silentLogger },
    )
    const other = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    const watch = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    const theirs = newKey()
    try {
      let token: Promise<string> | undefined
      await other.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${OAUTH_KEY_LOCK}, hashtext('signing'))`
        await tx`INSERT INTO oauth_signing_keys (id, alg, public_jwk, private_key, created_at)
          VALUES (${theirs.kid}, 'EdDSA', ${JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: theirs.jwk.x })}::text::jsonb,
            ${encryptSecret(t.ctx.secretKey, theirs.pem)}, ${Date.now()})`
        token = inTransaction(fresh.sqlite, () => signJwt(fresh, { sub: 'waited' }))
        await untilOneWaitsOnLock(watch, 'the first key is waited for')
      })
      expect(kidOf(await token!)).toBe(theirs.kid)
      expect(await kids()).toEqual([theirs.kid])
    } finally {
      await other.close()
      await watch.close()
      await fresh.store.close()
    }
  },
)
