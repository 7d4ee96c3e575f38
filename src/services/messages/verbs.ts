import { defineVerb } from '../verbs/define'
import { ListMessagesInput, MessageRef } from './inputs'
import { getMessage, listMessages } from './read'

export const listMessagesVerb = defineVerb({
  name: 'messages.list',
  scope: 'any',
  input: ListMessagesInput,
  mutates: false,
  run: (ctx, input) => listMessages(ctx, input),
})

export const getMessageVerb = defineVerb({
  name: 'messages.get',
  scope: 'any',
  input: MessageRef,
  mutates: false,
  run: (ctx, { id }) => getMessage(ctx, id),
})
