import { type NodeSpec, nextOf } from './spec'

/**
 * A conversion: met at any point of a run (the executor tests every goal at each node), it ends
 * the run as completed with reason goal. Reached on the path and not met, the run goes on.
 */
export const goal: NodeSpec = {
  members: ['match', 'rule_groups', 'next'],
  check: (c) => c.rules(),
  step(s, node) {
    s.count(node)
    s.history({ node: node.id, goal: false }, node.id)
    return nextOf(node)
  },
}
