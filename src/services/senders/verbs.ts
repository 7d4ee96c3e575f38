import { defineVerb } from '../verbs/define'
import { CreateSenderInput, ListSendersInput, SenderRef, UpdateSenderInput } from './inputs'
import { createSender, deleteSender, getSender, listSenders, updateSender } from './records'

export const listSendersVerb = defineVerb({
  name: 'senders.list',
  scope: 'any',
  input: ListSendersInput,
  mutates: false,
  run: (ctx, input) => listSenders(ctx, input),
})

export const createSenderVerb = defineVerb({
  name: 'senders.create',
  scope: 'admin:*',
  input: CreateSenderInput,
  mutates: true,
  run: (ctx, { client_id, ...fields }) => createSender(ctx, client_id, fields),
})

export const getSenderVerb = defineVerb({
  name: 'senders.get',
  scope: 'any',
  input: SenderRef,
  mutates: false,
  run: (ctx, { id }) => getSender(ctx, id),
})

export const updateSenderVerb = defineVerb({
  name: 'senders.update',
  scope: 'admin:*',
  input: UpdateSenderInput,
  mutates: true,
  run: (ctx, { id, ...patch }) => updateSender(ctx, id, patch),
})

export const deleteSenderVerb = defineVerb({
  name: 'senders.delete',
  scope: 'admin:*',
  input: SenderRef,
  mutates: true,
  destructive: true,
  run: (ctx, { id }) => deleteSender(ctx, id),
})
