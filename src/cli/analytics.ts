import type { Flags } from '../config'
import { analyticsRebuildVerb } from '../services/analytics/verbs'
import { invokeAsConsole } from './console-verbs'
import { withOfflineContextAsync } from './offline'
import { UsageError } from './usage'

/** `herald analytics rebuild [--client ID]`: the rollups recomputed from the messages, through the verb. */
export async function analyticsCommand(
  sub: string | undefined,
  args: string[],
  flags: Flags & { client?: string; json?: boolean },
): Promise<void> {
  if (sub !== 'rebuild' || args.length > 0)
    throw new UsageError('usage: herald analytics rebuild [--client ID]')
  const result = await withOfflineContextAsync(flags, (ctx) =>
    invokeAsConsole(analyticsRebuildVerb, ctx, flags.client ? { client_id: flags.client } : {}),
  )
  if (flags.json) console.log(JSON.stringify(result))
  else
    console.log(
      `rebuilt ${result.rows} rollup rows for ${result.client_id ?? 'every client'} in ${result.duration_ms} ms`,
    )
}
