import type { Ctx } from '../../context'
import { DAY_MS } from '../../lib/time'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { purgeUnconfirmed } from './membership'

// Double opt-in memberships nobody confirmed within 30 days go: the person never said yes, so
// the address is not kept on the list for ever. The confirmation link lives 7 days, so nothing
// that could still be confirmed is removed.

export const UNCONFIRMED_KEPT_MS = 30 * DAY_MS
const CHUNK = 5_000

/** One chunk per call (one transaction), so a backlog never holds the write lock for long. */
export async function purgeUnconfirmedChunk(ctx: Ctx) {
  const now = ctx.clock.now()
  const removed = await purgeUnconfirmed(ctx.db, now - UNCONFIRMED_KEPT_MS, now, CHUNK)
  return { removed, more: removed === CHUNK }
}

export const purgeUnconfirmedVerb = defineVerb({
  name: 'lists.purge-unconfirmed',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await purgeUnconfirmedChunk(ctx),
})
