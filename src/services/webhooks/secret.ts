// A webhook's signing secret: shown to an admin, and rotated with a period in which the previous
// secret still signs, so receivers can switch over.
import { eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { webhooks } from '../../db/schema'
import { decryptSecret, encryptSecret } from '../../lib/crypto'
import { iso, isoOrNull } from '../../lib/time'
import { generateSecret } from '../../webhooks/signing'
import { findWebhookRow } from './records'

/** After a rotation the previous secret keeps signing this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000

/** The current signing secret (admin only), and the previous one while it still signs. */
export async function revealSecret(ctx: Ctx, id: string) {
  const row = await findWebhookRow(ctx, id)
  const overlap = row.previousSecret !== null && (row.previousSecretExpiresAt ?? 0) > ctx.clock.now()
  return {
    id: row.id,
    secret: decryptSecret(ctx.secretKey, row.secret),
    previous_secret: overlap ? decryptSecret(ctx.secretKey, row.previousSecret!) : null,
    previous_secret_expires_at: overlap ? isoOrNull(row.previousSecretExpiresAt) : null,
  }
}

/** A new secret; the old one signs alongside for 24 hours so receivers can switch over. */
export async function rotateSecret(ctx: Ctx, id: string) {
  const row = await findWebhookRow(ctx, id)
  const secret = generateSecret()
  const now = ctx.clock.now()
  const expires = now + ROTATION_OVERLAP_MS
  await ctx.db
    .update(webhooks)
    .set({
      secret: encryptSecret(ctx.secretKey, secret),
      previousSecret: row.secret,
      previousSecretExpiresAt: expires,
      updatedAt: now,
    })
    .where(eq(webhooks.id, id))
  return { id, secret, previous_secret_expires_at: iso(expires) }
}
