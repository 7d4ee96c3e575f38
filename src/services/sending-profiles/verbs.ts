import { spansEveryClient } from '../actors/actor'
import { defineVerb } from '../verbs/define'
import { addressErrors, shapeErrors } from './checks'
import { testSendingProfile } from './connection-test'
import { PutSendingInput, SendingRef, TestSendingInput } from './inputs'
import { getSendingProfile, putSendingProfile } from './records'

// A client's sending accounts. admin:*; a tenant key with admin:* reaches only its own client.

export const getSendingProfileVerb = defineVerb({
  name: 'clients.sending.get',
  scope: 'admin:*',
  input: SendingRef,
  mutates: false,
  run: async (ctx, { id }) => await getSendingProfile(ctx, id),
})

export const putSendingProfileVerb = defineVerb({
  name: 'clients.sending.put',
  scope: 'admin:*',
  input: PutSendingInput,
  mutates: true,
  check: ({ id: _id, ...profile }) => shapeErrors(profile),
  // Where a tenant's relay and Twilio endpoint resolve is looked up before the transaction (DNS);
  // a caller whose authority spans every client (the agency) may name any host.
  prepare: async (ctx, { id: _id, ...profile }) =>
    spansEveryClient(ctx.actor) ? [] : addressErrors(ctx, profile),
  run: async (ctx, { id, ...profile }, found) => await putSendingProfile(ctx, id, profile, found),
})

export const testSendingProfileVerb = defineVerb({
  name: 'clients.sending.test',
  scope: 'admin:*',
  input: TestSendingInput,
  mutates: false,
  prepare: async (ctx, { id, channel }) => await testSendingProfile(ctx, id, channel),
  run: (_ctx, _input, result) => result,
})
