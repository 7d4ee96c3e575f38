import { MAX_WAIT_MS, parseIsoDuration } from '../../../lib/duration'
import { quoteValue } from '../../../lib/validate'
import { JOURNEY_EVENTS } from '../nodes'
import type { NodeSpec, Parked } from './spec'

/** Waits for the contact's event (opened, clicked, replied…) up to a timeout; on_event or on_timeout. */
export const waitForEvent: NodeSpec = {
  members: ['event', 'timeout', 'on_event', 'on_timeout'],
  branches: ['on_event', 'on_timeout'],
  waits: true,
  check(c) {
    c.event(true)
    const timeout = typeof c.node.timeout === 'string' ? parseIsoDuration(c.node.timeout) : null
    if (timeout === null)
      c.err('timeout', `${quoteValue(c.node.timeout)} is not an ISO 8601 duration (e.g. P3D)`)
    else if (timeout > MAX_WAIT_MS) c.err('timeout', 'must be at most 365 days')
  },
  async step(s, node): Promise<string | null | Parked> {
    s.count(node)
    const type = JOURNEY_EVENTS[String(node.event)] ?? ''
    s.history({ node: node.id, waiting_for: node.event }, node.id)
    return await s.park(node.id, s.now + (parseIsoDuration(String(node.timeout)) ?? 0), type, s.now)
  },
  async resume(s, node, run) {
    const since = run.wait_since ?? 0
    const hit = await s.eventSince(run.wait_event, since)
    const timeoutAt = since + (parseIsoDuration(String(node.timeout)) ?? 0)
    if (!hit && s.now < timeoutAt) return await s.park(node.id, timeoutAt, run.wait_event, run.wait_since)
    s.history({ node: node.id, result: hit ? 'event' : 'timeout' }, node.id)
    return ((hit ? node.on_event : node.on_timeout) as string | undefined) ?? null
  },
}
