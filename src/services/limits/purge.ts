import { purgeSharedLimits } from '../../db/shared-limits'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'

/** Windows and buckets untouched for this long are over: the longest window is a day. */
const KEEP_MS = 2 * 86_400_000

export const purgeSharedLimitsVerb = defineVerb({
  name: 'limits.purge',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await purgeSharedLimits(ctx.db, ctx.clock.now() - KEEP_MS),
})
