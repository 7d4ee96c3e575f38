import type { Db } from '../../db/client'
import { apiKeys } from '../../db/schema'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import type { ApiKeyTier } from '../../lib/enums'
import { newId } from '../../lib/ids'

export const KEY_PREFIX = 'hrld_'

export interface IssueKeyInput {
  name: string
  scopes: readonly string[]
  clientId: string | null
  tier?: ApiKeyTier
  expiresAt?: number | null
  /** A key chosen by the operator (HERALD_BOOTSTRAP_API_KEY); otherwise one is generated. */
  key?: string
  /** Minted by an agent registration's claim. */
  agent?: boolean
}

/** The one place keys are minted: REST, CLI and bootstrap all call it. Stores only the hash. */
export async function issueApiKey(db: Db, now: number, input: IssueKeyInput) {
  const key = input.key ?? `${KEY_PREFIX}${randomBase62(32)}`
  const row = (
    await db
      .insert(apiKeys)
      .values({
        id: newId(),
        clientId: input.clientId,
        name: input.name,
        keyHash: sha256Hex(key),
        prefix: key.slice(0, 12),
        scopes: [...new Set(input.scopes)],
        tier: input.tier ?? 'standard',
        createdAt: now,
        expiresAt: input.expiresAt ?? null,
        agent: input.agent ?? false,
      })
      .returning()
  )[0]!
  return { row, key }
}
