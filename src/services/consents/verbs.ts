import { ContactActivityInput } from '../contacts/inputs'
import { defineVerb } from '../verbs/define'
import { listConsents } from './read'

/** A contact's consent records (who subscribed, confirmed or left, where, when, what they saw). */
export const listConsentsVerb = defineVerb({
  name: 'contacts.consents',
  scope: 'any',
  input: ContactActivityInput,
  mutates: false,
  run: async (ctx, { id, ...page }) => await listConsents(ctx, id, page),
})
