import { createPrivateKey, type KeyObject } from 'node:crypto'
import type { Readable } from 'node:stream'
import { and, eq, inArray } from 'drizzle-orm'
import type { DkimSigning } from '../../channels/types'
import type { AppContext } from '../../context'
import { domains } from '../../db/schema'
import { decryptSecret } from '../../lib/crypto'
import { domainCandidates } from './names'

/**
 * Header fields covered by the signature. List-Unsubscribe and List-Unsubscribe-Post must be
 * signed for RFC 8058 one-click unsubscribe to count with Gmail and Yahoo.
 */
export const DKIM_HEADER_FIELDS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'Feedback-ID',
].join(':')

/** Options for nodemailer's `dkim` (transport or message) and for signMessage. */
export type { DkimSigning }

// Decrypting and parsing a PEM costs more than signing; keep parsed keys per domain version.
const keyCache = new Map<string, KeyObject>()
const KEY_CACHE_MAX = 1000

function privateKeyOf(app: AppContext, id: string, updatedAt: number, stored: string): KeyObject {
  const cacheKey = `${id}:${updatedAt}`
  let key = keyCache.get(cacheKey)
  if (!key) {
    key = createPrivateKey(decryptSecret(app.secretKey, stored))
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value as string)
    keyCache.set(cacheKey, key)
  }
  return key
}

/**
 * DKIM options for mail from `fromEmail` in `clientId`: the most specific domain of the
 * client (the address's domain, else a parent) whose DKIM record is verified; null when none.
 */
export async function dkimForSender(
  app: AppContext,
  clientId: string,
  fromEmail: string,
): Promise<DkimSigning | null> {
  const candidates = domainCandidates(fromEmail)
  if (candidates.length === 0) return null
  const rows = await app.db
    .select()
    .from(domains)
    .where(
      and(
        eq(domains.clientId, clientId),
        inArray(domains.domain, candidates),
        eq(domains.dkimVerified, true),
      ),
    )
  const row = candidates.map((d) => rows.find((r) => r.domain === d)).find((r) => r !== undefined)
  if (!row) return null
  return {
    domainName: row.domain,
    keySelector: row.dkimSelector,
    privateKey: privateKeyOf(app, row.id, row.updatedAt, row.dkimPrivateKey),
    headerFieldNames: DKIM_HEADER_FIELDS,
  }
}

/** Signs a complete RFC 5322 message; the DKIM-Signature header is prepended. */
export async function signMessage(raw: string | Buffer, dkim: DkimSigning): Promise<Buffer> {
  // Loaded when the first message is signed (SMTP with a verified domain), not at every start.
  const { default: DKIM } = await import('nodemailer/lib/dkim')
  const signed: Readable = new DKIM({ ...dkim }).sign(raw)
  const chunks: Buffer[] = []
  for await (const chunk of signed) chunks.push(Buffer.from(chunk as Buffer))
  return Buffer.concat(chunks)
}
