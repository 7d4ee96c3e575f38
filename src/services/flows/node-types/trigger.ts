import { a } from '../../../lib/article'
import { notOneOf } from '../../../lib/validate'
import { TRIGGERS } from '../nodes'
import { type NodeSpec, nextOf } from './spec'

/** Where a journey starts: a contact enters by an enroll call, a segment, a list, an event or being created. */
export const trigger: NodeSpec = {
  members: ['trigger', 'segment_id', 'list_id', 'event', 'campaign_id', 'next'],
  check(c) {
    const kind = c.node.trigger
    if (!(TRIGGERS as readonly unknown[]).includes(kind)) return c.err('trigger', notOneOf(kind, TRIGGERS))
    const only = (members: string[]) => {
      for (const m of ['segment_id', 'list_id', 'event', 'campaign_id'])
        if (!members.includes(m) && c.node[m] !== undefined)
          c.err(m, `does not apply to ${a(String(kind))} trigger`)
    }
    if (kind === 'segment_entered') {
      only(['segment_id'])
      c.ref('segment_id', 'segment', c.refs.segment, true)
    } else if (kind === 'list_joined') {
      only(['list_id'])
      c.ref('list_id', 'list', c.refs.list, true)
    } else if (kind === 'event') {
      only(['event', 'campaign_id'])
      c.event(true)
      c.ref('campaign_id', 'campaign', c.refs.campaign, false)
    } else only([])
  },
  step(s, node) {
    s.count(node)
    s.history({ node: node.id }, node.id)
    return nextOf(node)
  },
}
