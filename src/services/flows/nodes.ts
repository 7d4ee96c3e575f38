// The node types of a flow: each type's members and the members that point at other nodes. A
// node is a flat object `{id, type, next?, ...members of its type}`. A journey's graph is written
// in them; a sequence's steps compile to them (./linear.ts).

export const NODE_TYPES = [
  'trigger',
  'send',
  'wait',
  'wait_for_event',
  'condition',
  'split',
  'update_contact',
  'add_to_list',
  'remove_from_list',
  'webhook',
  'goal',
  'exit',
] as const
export type NodeType = (typeof NODE_TYPES)[number]

export const TRIGGERS = ['manual', 'segment_entered', 'list_joined', 'event', 'contact_created'] as const
export type TriggerKind = (typeof TRIGGERS)[number]

/** Events a trigger or a wait_for_event may name, and the event types they mean. */
export const JOURNEY_EVENTS: Record<string, string> = {
  opened: 'email.opened',
  clicked: 'email.clicked',
  replied: 'reply.received',
  bounced: 'email.bounced',
  unsubscribed: 'contact.unsubscribed',
}
export const JOURNEY_EVENT_TYPES = new Set(Object.values(JOURNEY_EVENTS))

/** A node as stored (already checked). */
export type FlowNode = Record<string, unknown> & { id: string; type: NodeType }

/** The nodes a node can go to, each with the member that names it. */
export function edgesOf(node: Record<string, unknown>): { member: string; to: string }[] {
  const out: { member: string; to: string }[] = []
  for (const m of ['next', 'yes', 'no', 'on_event', 'on_timeout'])
    if (typeof node[m] === 'string') out.push({ member: m, to: node[m] as string })
  if (Array.isArray(node.branches))
    node.branches.forEach((b, i) => {
      if (b && typeof b === 'object' && typeof (b as { next?: unknown }).next === 'string')
        out.push({ member: `branches[${i}].next`, to: (b as { next: string }).next })
    })
  return out
}
