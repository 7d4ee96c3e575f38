import { and, eq, like } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { domains } from '../../db/schema'
import { ownerForCreate } from '../../db/tenant'
import { conflict, invalidField } from '../../errors'
import { encryptSecret } from '../../lib/crypto'
import { type DkimKeyPair, generateDkimKey } from '../../lib/dkim-key'
import { newId } from '../../lib/ids'
import type { CreateDomainFields } from './inputs'
import { normalizeDomain } from './names'
import { presentDomain } from './present'

async function assertNew(ctx: Ctx, clientId: string, domain: string) {
  const existing = (
    await ctx.db
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.clientId, clientId), eq(domains.domain, domain)))
      .limit(1)
  )[0]
  if (existing) throw conflict(`The domain ${domain} already exists in this client`, existing.id)
}

/**
 * `herald<YYYYMM>`; when another client already uses that selector for the same domain name
 * (both would have to publish at one DNS name), a letter is appended: herald202611b, …
 */
async function pickSelector(ctx: Ctx, domain: string): Promise<string> {
  const base = `herald${new Date(ctx.clock.now()).toISOString().slice(0, 7).replace('-', '')}`
  const taken = new Set(
    (
      await ctx.db
        .select({ selector: domains.dkimSelector })
        .from(domains)
        .where(and(eq(domains.domain, domain), like(domains.dkimSelector, `${base}%`)))
    ).map((r) => r.selector),
  )
  if (!taken.has(base)) return base
  for (let c = 98; c <= 122; c++)
    if (!taken.has(base + String.fromCharCode(c))) return base + String.fromCharCode(c)
  return `${base}${Date.now().toString(36)}`
}

export interface PreparedDomain {
  clientId: string
  domain: string
  key: DkimKeyPair
}

/**
 * Checks the request and generates the 2048-bit key off the event loop (slow, and no writes),
 * so the transaction that follows only inserts.
 */
export async function prepareDomain(
  ctx: Ctx,
  clientIdParam: string | undefined,
  input: CreateDomainFields,
): Promise<PreparedDomain> {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const domain = normalizeDomain(input.domain)
  if (!domain) throw invalidField('domain', 'must be a domain name such as example.com')
  await assertNew(ctx, clientId, domain)
  return { clientId, domain, key: await generateDkimKey() }
}

/** Writes the prepared domain; the name is checked again, as another request may have added it. */
export async function createDomain(ctx: Ctx, { clientId, domain, key }: PreparedDomain) {
  await assertNew(ctx, clientId, domain)
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(domains)
      .values({
        id: newId(),
        clientId,
        domain,
        dkimSelector: await pickSelector(ctx, domain),
        dkimPublicKey: key.publicKey,
        dkimPrivateKey: encryptSecret(ctx.secretKey, key.privateKeyPem),
        // The instance switch is the default; PATCH changes it for this domain alone.
        warmup: ctx.config.warmup,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentDomain(row, ctx.config, null)
}
