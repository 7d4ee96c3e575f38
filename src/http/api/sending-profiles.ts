import { Type as t } from '@sinclair/typebox'
import { EMAIL_PROVIDERS, TEXT_PROVIDERS } from '../../services/sending-profiles/inputs'
import {
  getSendingProfileVerb,
  putSendingProfileVerb,
  testSendingProfileVerb,
} from '../../services/sending-profiles/verbs'
import { DateTime, dataOf, Nullable, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const lit = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)))
const Url = t.String()

const TextChannelProfile = t.Object({
  provider: lit(TEXT_PROVIDERS),
  twilio_account_sid: Nullable(t.String()),
  auth_token_set: t.Boolean(),
  twilio_base_url: Nullable(Url),
  from: Nullable(t.String()),
})

const SendingProfile = named(
  'SendingProfile',
  t.Object({
    client_id: Uuid,
    email: t.Object({
      provider: lit(EMAIL_PROVIDERS),
      /** The password masked. */
      smtp_url: Nullable(t.String()),
      pool: Nullable(t.Integer()),
      throttles: t.Record(t.String(), t.Integer()),
      hourly_cap: Nullable(t.Integer()),
    }),
    sms: t.Object({
      ...TextChannelProfile.properties,
      help_text: Nullable(t.String({ description: 'The reply to HELP or INFO (null: the default)' })),
    }),
    voice: TextChannelProfile,
    whatsapp: TextChannelProfile,
    rcs: TextChannelProfile,
    default_sender_id: Nullable(Uuid),
    footer: t.Object({ company: Nullable(t.String()), postal_address: Nullable(t.String()) }),
    feedback: t.Object({
      ses: t.Object({ enabled: t.Boolean() }),
      postmark: Nullable(t.Object({ username: t.String(), password_set: t.Boolean() })),
      mailgun: Nullable(t.Object({ signing_key_set: t.Boolean() })),
      sendgrid: Nullable(t.Object({ public_key: t.String() })),
      /** Where each provider posts its notifications (null until the profile is first saved). */
      urls: Nullable(
        t.Object({
          ses: Url,
          postmark: Url,
          mailgun: Url,
          sendgrid: Url,
          twilio_sms: t.String({
            description: 'Inbound SMS (STOP, START, HELP, replies): the number’s Messaging webhook',
          }),
        }),
      ),
      /** When each provider last posted an authenticated notification (null: never). */
      last_received_at: t.Object({
        ses: Nullable(DateTime),
        postmark: Nullable(DateTime),
        mailgun: Nullable(DateTime),
        sendgrid: Nullable(DateTime),
      }),
    }),
    version: t.Integer(),
    updated_at: Nullable(DateTime),
  }),
)

const tag = 'Clients'
const PATH = '/api/v1/clients/{id}/sending'

export const sendingProfileOperations = [
  route(getSendingProfileVerb, {
    id: 'getClientSending',
    method: 'GET',
    path: PATH,
    tag,
    summary: "Get a client's sending accounts (secrets masked)",
    response: dataOf(SendingProfile),
  }),
  route(putSendingProfileVerb, {
    id: 'putClientSending',
    method: 'PUT',
    path: PATH,
    tag,
    summary:
      "Replace a client's sending accounts (a channel left out inherits the instance's; a secret left out is kept)",
    response: dataOf(SendingProfile),
  }),
  route(testSendingProfileVerb, {
    id: 'testClientSending',
    method: 'POST',
    path: `${PATH}/test`,
    tag,
    summary:
      "Test a client's account for a channel: SMTP connect, EHLO, STARTTLS, AUTH, QUIT; Twilio reads the account",
    response: dataOf(t.Object({ ok: t.Boolean(), detail: t.String() })),
  }),
]
