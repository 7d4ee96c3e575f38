import { defineVerb } from '../verbs/define'
import { ListMessagesInput, MessageRef, OutboxInput, SendMessageInput } from './inputs'
import { listOutbox } from './outbox'
import { getMessage, listMessages } from './read'
import { sendMessage } from './send'

export const listMessagesVerb = defineVerb({
  name: 'messages.list',
  scope: 'any',
  input: ListMessagesInput,
  mutates: false,
  run: async (ctx, input) => await listMessages(ctx, input),
})

export const getMessageVerb = defineVerb({
  name: 'messages.get',
  scope: 'any',
  input: MessageRef,
  mutates: false,
  run: async (ctx, { id }) => await getMessage(ctx, id),
})

/** One message outside any campaign (a transactional or test send), through the same outbox. */
export const sendMessageVerb = defineVerb({
  name: 'messages.send',
  scope: 'campaigns:write',
  input: SendMessageInput,
  mutates: true,
  run: async (ctx, input) => await sendMessage(ctx, input),
})

/** The portal's outbox viewer: subjects and recipient search, no total (portal-only, no REST route). */
export const outboxVerb = defineVerb({
  name: 'messages.outbox',
  scope: 'any',
  input: OutboxInput,
  mutates: false,
  run: async (ctx, input) => await listOutbox(ctx, input),
})
