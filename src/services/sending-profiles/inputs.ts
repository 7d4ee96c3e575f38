import { type Static, Type as t } from '@sinclair/typebox'
import { idRef, Nullable, RecordId, strict } from '../verbs/schemas'

// What PUT /clients/{id}/sending takes. The body is the whole profile: a channel left out
// inherits the instance settings. A secret left out keeps the stored one.

const lit = <T extends string>(values: readonly T[]) => t.Union(values.map((v) => t.Literal(v)))

export const EMAIL_PROVIDERS = ['inherit', 'capture', 'smtp', 'simulator'] as const
export const TEXT_PROVIDERS = ['inherit', 'capture', 'twilio', 'simulator'] as const
export const TEXT_CHANNELS = ['sms', 'voice', 'whatsapp', 'rcs'] as const
export type TextChannel = (typeof TEXT_CHANNELS)[number]

const EmailProfile = t.Object(
  {
    provider: lit(EMAIL_PROVIDERS),
    smtp_url: t.Optional(
      t.String({ minLength: 1, maxLength: 2048, description: 'smtp:// or smtps://, with credentials' }),
    ),
    pool: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: 'SMTP connections at once' })),
    throttles: t.Optional(
      t.Record(t.String({ maxLength: 253 }), t.Integer({ minimum: 1, maximum: 1_000_000 }), {
        maxProperties: 100,
        description: 'Messages per minute per recipient domain, e.g. {"gmail.com": 600}',
      }),
    ),
    hourly_cap: t.Optional(
      t.Integer({ minimum: 1, maximum: 10_000_000, description: 'Messages an hour, at most' }),
    ),
  },
  strict,
)

const TextProfile = t.Object(
  {
    provider: lit(TEXT_PROVIDERS),
    twilio_account_sid: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    twilio_auth_token: t.Optional(t.String({ minLength: 1, maxLength: 256, description: 'Write-only' })),
    twilio_base_url: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
    from: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: 'E.164 number or Messaging Service SID' }),
    ),
  },
  strict,
)

/** SMS also says what a HELP or INFO text is answered with. */
const SmsProfile = t.Object(
  {
    ...TextProfile.properties,
    help_text: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 320,
        description:
          'The reply to HELP or INFO (default "<client name>: reply STOP to unsubscribe, START to resubscribe.")',
      }),
    ),
  },
  strict,
)

const Feedback = t.Object(
  {
    ses: t.Optional(t.Object({ enabled: t.Boolean() }, strict)),
    postmark: t.Optional(
      t.Object(
        {
          username: t.String({ minLength: 1, maxLength: 200 }),
          password: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Write-only' })),
        },
        strict,
      ),
    ),
    mailgun: t.Optional(
      t.Object(
        { signing_key: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Write-only' })) },
        strict,
      ),
    ),
    sendgrid: t.Optional(
      t.Object(
        {
          public_key: t.String({
            minLength: 1,
            maxLength: 1000,
            description: 'base64 DER SPKI of the P-256 key',
          }),
        },
        strict,
      ),
    ),
    rotate_token: t.Optional(
      t.Boolean({ description: 'A new token in the feedback URLs (the old ones stop working)' }),
    ),
  },
  strict,
)

const profileFields = {
  email: t.Optional(EmailProfile),
  sms: t.Optional(SmsProfile),
  voice: t.Optional(TextProfile),
  whatsapp: t.Optional(TextProfile),
  rcs: t.Optional(TextProfile),
  default_sender_id: t.Optional(Nullable(idRef('sender'))),
  footer: t.Optional(
    t.Object(
      {
        company: t.Optional(t.String({ maxLength: 200 })),
        postal_address: t.Optional(t.String({ maxLength: 500 })),
      },
      strict,
    ),
  ),
  feedback: t.Optional(Feedback),
}

export const PutSendingInput = t.Object({ id: RecordId, ...profileFields }, strict)
export type SendingProfileInput = Omit<Static<typeof PutSendingInput>, 'id'>

export const SendingRef = t.Object({ id: RecordId }, strict)

export const TestSendingInput = t.Object(
  { id: RecordId, channel: lit(['email', ...TEXT_CHANNELS] as const) },
  strict,
)
