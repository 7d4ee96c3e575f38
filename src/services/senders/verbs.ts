import { defineVerb } from '../verbs/define'
import { CreateSenderInput, ListSendersInput, SenderRef, UpdateSenderInput } from './inputs'
import { createSender, deleteSender, getSender, listSenders, updateSender } from './records'

export const listSendersVerb = defineVerb({
  name: 'senders.list',
  scope: 'any',
  input: ListSendersInput,
  mutates: false,
  run: async (ctx, input) => await listSenders(ctx, input),
})

export const createSenderVerb = defineVerb({
  name: 'senders.create',
  scope: 'admin:*',
  input: CreateSenderInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createSender(ctx, client_id, fields),
})

export const getSenderVerb = defineVerb({
  name: 'senders.get',
  scope: 'any',
  input: SenderRef,
  mutates: false,
  run: async (ctx, { id }) => await getSender(ctx, id),
})

export const updateSenderVerb = defineVerb({
  name: 'senders.update',
  scope: 'admin:*',
  input: UpdateSenderInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateSender(ctx, id, patch),
})

export const deleteSenderVerb = defineVerb({
  name: 'senders.delete',
  scope: 'admin:*',
  input: SenderRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteSender(ctx, id),
})
