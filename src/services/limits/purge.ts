import { purgeSharedLimits } from '../../db/shared-limits'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'

export const purgeSharedLimitsVerb = defineVerb({
  name: 'limits.purge',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await purgeSharedLimits(ctx.db, ctx.clock.now()),
})
