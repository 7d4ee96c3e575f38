import type { CampaignRow } from '../../db/schema'
import type { FieldError } from '../../errors'

// What create and PATCH refuse of a campaign's local time (local-time.ts says how it runs).

/** The 422s of a local time: it cannot be combined with an A/B test. */
export function checkLocalTime(sendAtLocal: string | null, abTest: unknown, errors: FieldError[]): void {
  if (sendAtLocal && abTest)
    errors.push({ field: 'send_at_local', message: 'cannot be combined with an A/B test' })
}

/**
 * Once launched, a local-time campaign's recipients are queued at their instants: the time and
 * the day cannot change any more (cancel it and send another instead).
 */
export function checkLaunchedLocalTime(
  current: CampaignRow,
  patch: { send_at_local?: string | null; scheduled_at?: string | null },
  errors: FieldError[],
): void {
  if (current.launchedAt === null) return
  if (patch.send_at_local !== undefined && patch.send_at_local !== current.sendAtLocal)
    errors.push({ field: 'send_at_local', message: 'cannot change once the campaign has launched' })
  if (current.sendAtLocal && patch.scheduled_at !== undefined)
    errors.push({
      field: 'scheduled_at',
      message: 'a local-time campaign has queued each recipient at their hour; it cannot be moved now',
    })
}
