import { MAX_WAIT_MS, nextTimeOfDay, parseIsoDuration, parseTimeOfDay } from '../../../lib/duration'
import { iso } from '../../../lib/time'
import { quoteValue } from '../../../lib/validate'
import { type NodeSpec, nextOf } from './spec'

/** A pause: for a duration, or until a time of day in the contact's zone. */
export const wait: NodeSpec = {
  members: ['duration', 'until', 'next'],
  waits: true,
  check(c) {
    const hasDuration = c.node.duration !== undefined
    const hasUntil = c.node.until !== undefined
    if (hasDuration === hasUntil)
      c.err(
        hasDuration ? 'until' : 'duration',
        'give either duration (ISO 8601, e.g. P2D) or until (HH:MM), not both',
      )
    const ms = typeof c.node.duration === 'string' ? parseIsoDuration(c.node.duration) : null
    if (hasDuration && ms === null)
      c.err(
        'duration',
        `${quoteValue(c.node.duration)} is not an ISO 8601 duration in weeks, days, hours, minutes or seconds (e.g. P2D, PT4H, PT30S)`,
      )
    else if (hasDuration && ms! > MAX_WAIT_MS) c.err('duration', 'must be at most 365 days')
    if (hasUntil && (typeof c.node.until !== 'string' || parseTimeOfDay(c.node.until) === null))
      c.err('until', `${quoteValue(c.node.until)} is not a time of day HH:MM (24-hour)`)
  },
  async step(s, node) {
    s.count(node)
    const next = nextOf(node)
    const due =
      typeof node.duration === 'string'
        ? s.now + (parseIsoDuration(node.duration) ?? 0)
        : nextTimeOfDay(
            s.now,
            parseTimeOfDay(String(node.until)) ?? 0,
            s.contact.timezone ?? s.clientZone ?? 'UTC',
          )
    s.history({ node: node.id, until: iso(due) }, node.id)
    // A wait already over (PT0S) is not a trip through the queue: the path goes on in this step,
    // so the next node starts at its due time instead of behind every run due meanwhile.
    if (next === null || due <= s.now) return next
    return await s.park(next, due)
  },
}
