import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import {
  type SendingProfileRow,
  type StoredProfile,
  type StoredTextChannel,
  senders,
  sendingProfiles,
} from '../../db/schema'
import { validationFailed } from '../../errors'
import { encryptSecret, randomBase62 } from '../../lib/crypto'
import { parseId } from '../../lib/ids'
import type { FieldError } from '../../lib/validate'
import { findClientRow } from '../clients/read'
import { type SendingProfileInput, TEXT_CHANNELS } from './inputs'
import { presentProfile } from './present'

// A client's sending profile: read (secrets masked) and replaced whole. A secret left out of a
// PUT keeps the stored one; each secret is stored encrypted under the instance key.

const INHERIT_TEXT: StoredTextChannel = { provider: 'inherit' }

const EMPTY_PROFILE: StoredProfile = {
  email: { provider: 'inherit' },
  sms: INHERIT_TEXT,
  voice: INHERIT_TEXT,
  whatsapp: INHERIT_TEXT,
  rcs: INHERIT_TEXT,
  default_sender_id: null,
  footer: {},
  feedback: {},
}

export async function profileRow(
  ctx: Pick<Ctx, 'db'>,
  clientId: string,
): Promise<SendingProfileRow | undefined> {
  return (
    await ctx.db.select().from(sendingProfiles).where(eq(sendingProfiles.clientId, clientId)).limit(1)
  )[0]
}

/** The profile whose feedback URLs carry `token` (ESP notifications, inbound SMS). */
export async function profileByToken(
  ctx: Pick<Ctx, 'db'>,
  token: string,
): Promise<SendingProfileRow | undefined> {
  return (
    await ctx.db.select().from(sendingProfiles).where(eq(sendingProfiles.feedbackToken, token)).limit(1)
  )[0]
}

export async function getSendingProfile(ctx: Ctx, clientId: string) {
  const client = await findClientRow(ctx, clientId)
  return await presentProfile(ctx, client.id, await profileRow(ctx, client.id))
}

/** The new stored profile from the body and the stored one (secrets kept when not given). */
function merge(
  ctx: Ctx,
  input: SendingProfileInput,
  before: StoredProfile,
  errors: FieldError[],
): StoredProfile {
  const seal = (value: string) => encryptSecret(ctx.secretKey, value)
  const email = input.email ?? { provider: 'inherit' as const }
  const keptSmtp = email.provider === before.email.provider ? before.email.smtp_url : undefined
  const storedEmail: StoredProfile['email'] = {
    provider: email.provider,
    ...(email.smtp_url !== undefined
      ? { smtp_url: seal(email.smtp_url) }
      : keptSmtp
        ? { smtp_url: keptSmtp }
        : {}),
    ...(email.pool !== undefined ? { pool: email.pool } : {}),
    ...(email.throttles !== undefined ? { throttles: email.throttles } : {}),
    ...(email.hourly_cap !== undefined ? { hourly_cap: email.hourly_cap } : {}),
  }
  if (storedEmail.provider === 'smtp' && !storedEmail.smtp_url)
    errors.push({ field: 'email.smtp_url', message: 'is required for the smtp provider' })
  const text = {} as Record<(typeof TEXT_CHANNELS)[number], StoredTextChannel>
  for (const channel of TEXT_CHANNELS) {
    const given = input[channel] ?? INHERIT_TEXT
    const old = before[channel]
    const keptToken = given.provider === old.provider ? old.twilio_auth_token : undefined
    const stored: StoredTextChannel = {
      provider: given.provider,
      ...(given.twilio_account_sid !== undefined ? { twilio_account_sid: given.twilio_account_sid } : {}),
      ...(given.twilio_auth_token !== undefined
        ? { twilio_auth_token: seal(given.twilio_auth_token) }
        : keptToken
          ? { twilio_auth_token: keptToken }
          : {}),
      ...(given.twilio_base_url !== undefined ? { twilio_base_url: given.twilio_base_url } : {}),
      ...(given.from !== undefined ? { from: given.from } : {}),
      ...(channel === 'sms' && input.sms?.help_text !== undefined ? { help_text: input.sms.help_text } : {}),
    }
    if (stored.provider === 'twilio') {
      if (!stored.twilio_account_sid)
        errors.push({
          field: `${channel}.twilio_account_sid`,
          message: 'is required for the twilio provider',
        })
      if (!stored.twilio_auth_token)
        errors.push({ field: `${channel}.twilio_auth_token`, message: 'is required for the twilio provider' })
    }
    text[channel] = stored
  }
  const f = input.feedback ?? {}
  const feedback: StoredProfile['feedback'] = {}
  if (f.ses) feedback.ses = { enabled: f.ses.enabled }
  if (f.postmark) {
    const password =
      f.postmark.password !== undefined ? seal(f.postmark.password) : before.feedback.postmark?.password
    if (!password) errors.push({ field: 'feedback.postmark.password', message: 'is required' })
    else feedback.postmark = { username: f.postmark.username, password }
  }
  if (f.mailgun) {
    const key =
      f.mailgun.signing_key !== undefined ? seal(f.mailgun.signing_key) : before.feedback.mailgun?.signing_key
    if (!key) errors.push({ field: 'feedback.mailgun.signing_key', message: 'is required' })
    else feedback.mailgun = { signing_key: key }
  }
  if (f.sendgrid) feedback.sendgrid = { public_key: f.sendgrid.public_key }
  return {
    email: storedEmail,
    ...text,
    default_sender_id: input.default_sender_id ? (parseId(input.default_sender_id) ?? null) : null,
    footer: {
      ...(input.footer?.company ? { company: input.footer.company } : {}),
      ...(input.footer?.postal_address ? { postal_address: input.footer.postal_address } : {}),
    },
    feedback,
  }
}

/**
 * PUT /clients/{id}/sending: the whole profile replaced (a channel left out inherits). `found`
 * are the problems the verb's `prepare` found with the hosts (DNS, outside the transaction).
 */
export async function putSendingProfile(
  ctx: Ctx,
  clientId: string,
  input: SendingProfileInput,
  found: FieldError[],
) {
  const client = await findClientRow(ctx, clientId)
  const row = await profileRow(ctx, client.id)
  const errors: FieldError[] = [...found]
  const profile = merge(ctx, input, row?.profile ?? EMPTY_PROFILE, errors)
  if (
    profile.default_sender_id !== null &&
    !(
      await ctx.db
        .select({ id: senders.id })
        .from(senders)
        .where(and(eq(senders.id, profile.default_sender_id), eq(senders.clientId, client.id)))
        .limit(1)
    )[0]
  )
    errors.push({ field: 'default_sender_id', message: 'no such sender in this client' })
  if (errors.length) throw validationFailed(errors)
  const now = ctx.clock.now()
  const token = !row || input.feedback?.rotate_token ? randomBase62(24) : row.feedbackToken
  const saved = (
    await ctx.db
      .insert(sendingProfiles)
      .values({ clientId: client.id, profile, version: 1, feedbackToken: token, updatedAt: now })
      .onConflictDoUpdate({
        target: sendingProfiles.clientId,
        set: { profile, version: (row?.version ?? 0) + 1, feedbackToken: token, updatedAt: now },
      })
      .returning()
  )[0]!
  return await presentProfile(ctx, client.id, saved)
}
