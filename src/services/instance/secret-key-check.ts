import { eq } from 'drizzle-orm'
import { ConfigError } from '../../config'
import type { Db } from '../../db/client'
import { instanceFacts } from '../../db/schema'
import { hmacBase64Url } from '../../lib/crypto'

const FACT = 'secret_key_check'
/** What is signed: the check shows which key signed it, never the key. */
const CHECKED = 'herald secret key check'

/**
 * Refuses a process whose secret key differs from the one the database's first process wrote
 * under. Processes sharing one PostgreSQL database must share the key (HERALD_SECRET_KEY): with
 * another, a process could not decrypt the DKIM keys and sending accounts the others stored, and
 * the others would refuse its pagination cursors and tracking links.
 */
export async function checkSecretKey(db: Db, key: Uint8Array): Promise<void> {
  const check = hmacBase64Url(key, CHECKED)
  await db.insert(instanceFacts).values({ name: FACT, value: check }).onConflictDoNothing()
  const stored = (await db.select().from(instanceFacts).where(eq(instanceFacts.name, FACT)).limit(1))[0]
  if (stored && stored.value !== check)
    throw new ConfigError(
      "the secret key differs from the one this PostgreSQL database was first used with: every Herald process on a database needs the same key; set HERALD_SECRET_KEY to that key (the first process's HERALD_SECRET_KEY, or the secret.key file in its data directory)",
    )
}
