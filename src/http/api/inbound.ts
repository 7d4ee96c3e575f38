import { Type as t } from '@sinclair/typebox'
import { INBOUND_LIMIT } from '../../services/inbound/upload'
import { receiveInboundVerb } from '../../services/inbound/verbs'
import { dataOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Kind = t.Union(['bounce', 'complaint', 'reply', 'unsubscribe', 'ignored'].map((k) => t.Literal(k)))
const InboundResult = named(
  'InboundResult',
  t.Object({
    kind: Kind,
    message_id: t.Optional(Uuid),
    reply_id: t.Optional(Uuid),
    bounce_type: t.Optional(t.Union([t.Literal('hard'), t.Literal('soft')])),
    reason: t.Optional(t.String({ description: 'Why nothing was recorded (kind ignored), or a note' })),
  }),
)

export const inboundOperations = [
  route(receiveInboundVerb, {
    id: 'receiveInboundEmail',
    method: 'POST',
    path: '/api/v1/inbound/email',
    tag: 'Inbound',
    summary: 'Hand Herald one inbound email (raw MIME): a bounce, complaint, unsubscribe or reply',
    description:
      'The same routing as the inbound SMTP listener: DSNs (RFC 3464) become hard or soft bounces, ARF abuse ' +
      'reports (RFC 5965) complaints, mail to an unsubscribe+ address an unsubscribe, and other mail to a reply+ ' +
      'address (or answering a Herald Message-ID) a reply. Mail that cannot be tied to a message Herald sent ' +
      'is answered with kind "ignored" and a reason.',
    query: ['to'],
    stream: {
      contentTypes: ['message/rfc822', 'text/plain', 'application/octet-stream'],
      limit: INBOUND_LIMIT,
    },
    response: dataOf(InboundResult),
  }),
]
