import { defineVerb } from '../verbs/define'
import { ReceiveInboundInput } from './inputs'
import { readUpload, receiveUpload } from './upload'

export const receiveInboundVerb = defineVerb({
  name: 'inbound.receive',
  scope: 'admin:*',
  input: ReceiveInboundInput,
  mutates: true,
  // Reading and parsing the MIME happen before the transaction; routing writes in it.
  prepare: (_ctx, { to }, extras) => readUpload(extras.upload, to),
  run: async (ctx, _input, read) => await receiveUpload(ctx, read),
})
