import type { NodeSpec } from './spec'

/** Rule groups, as a segment's, tested against the contact now: yes or no. */
export const condition: NodeSpec = {
  members: ['match', 'rule_groups', 'yes', 'no'],
  branches: ['yes', 'no'],
  check: (c) => c.rules(),
  async step(s, node) {
    s.count(node)
    const yes = await s.test(node)
    s.history({ node: node.id, result: yes ? 'yes' : 'no' }, node.id)
    return ((yes ? node.yes : node.no) as string | undefined) ?? null
  },
}
