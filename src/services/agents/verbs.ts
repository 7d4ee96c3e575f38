import { ServiceError, validationFailed } from '../../errors'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { type IdJag, IdJagError, verifyIdJag } from './id-jag'
import {
  ApproveRegistrationInput,
  ClaimAgentInput,
  ListRegistrationsInput,
  RegisterAgentInput,
  RegistrationRef,
  RevokeAgentInput,
} from './inputs'
import { claimAgent, registerAgent, registrationByHandle, revokeAgentCredential } from './registrations'
import {
  approveRegistration,
  denyRegistration,
  getRegistration,
  listOpenRegistrations,
  purgeExpiredRegistrations,
} from './review'

// Agent registration. register, claim and revoke are public (no credential; the
// REST door gives each its own per-IP bucket); the review verbs are the portal's, admin:* only.

export const registerAgentVerb = defineVerb({
  name: 'agents.register',
  scope: 'public',
  input: RegisterAgentInput,
  mutates: true,
  run: async (ctx, input) => await registerAgent(ctx, input),
})

export const claimAgentVerb = defineVerb({
  name: 'agents.claim',
  scope: 'public',
  input: ClaimAgentInput,
  mutates: true,
  secrets: ['credential'],
  // The assertion's issuer keys are fetched over the network: verified here, before the
  // transaction. A registration that is not waiting for an assertion skips it.
  async prepare(ctx, input): Promise<IdJag | null> {
    const row = await registrationByHandle(ctx, input.registration_id)
    if (row.identityType !== 'identity_assertion' || row.status !== 'pending') return null
    if (input.identity_assertion === undefined)
      throw validationFailed([
        { field: 'identity_assertion', message: 'is required to claim an identity_assertion registration' },
      ])
    try {
      return await verifyIdJag(input.identity_assertion, {
        audience: ctx.config.publicUrl,
        trustedIssuers: ctx.config.idjagIssuers,
        now: ctx.clock.now(),
      })
    } catch (err) {
      if (!(err instanceof IdJagError)) throw err
      throw new ServiceError('UNAUTHORIZED', err.message, { reason: err.reason })
    }
  },
  run: async (ctx, input, jag) => await claimAgent(ctx, input, jag),
})

export const revokeAgentVerb = defineVerb({
  name: 'agents.revoke',
  scope: 'public',
  input: RevokeAgentInput,
  mutates: true,
  destructive: true,
  run: async (ctx, input) => await revokeAgentCredential(ctx, input),
})

export const listRegistrationsVerb = defineVerb({
  name: 'agents.registrations.list',
  scope: 'admin:*',
  input: ListRegistrationsInput,
  mutates: false,
  run: async (ctx, input) => await listOpenRegistrations(ctx, input),
})

export const getRegistrationVerb = defineVerb({
  name: 'agents.registrations.get',
  scope: 'admin:*',
  input: RegistrationRef,
  mutates: false,
  run: async (ctx, { id }) => await getRegistration(ctx, id),
})

export const approveRegistrationVerb = defineVerb({
  name: 'agents.registrations.approve',
  scope: 'admin:*',
  input: ApproveRegistrationInput,
  mutates: true,
  run: async (ctx, input) => await approveRegistration(ctx, input),
})

/** The agents.purge job: expired registrations that were never claimed. */
export const purgeRegistrationsVerb = defineVerb({
  name: 'agents.purge',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => ({ removed: await purgeExpiredRegistrations(ctx) }),
})

export const denyRegistrationVerb = defineVerb({
  name: 'agents.registrations.deny',
  scope: 'admin:*',
  input: RegistrationRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await denyRegistration(ctx, id),
})
