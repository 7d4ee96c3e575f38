import { Type as t } from '@sinclair/typebox'
import { strict } from '../verbs/schemas'

// What the inbound verb takes besides the raw message (which arrives as `extras.upload`).

export const ReceiveInboundInput = t.Object(
  {
    to: t.Optional(
      t.String({
        maxLength: 2048,
        description:
          'Envelope recipient(s), comma-separated; without it Delivered-To, X-Original-To and To are read',
      }),
    ),
  },
  strict,
)
