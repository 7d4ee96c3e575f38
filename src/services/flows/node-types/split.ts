import { pickByWeight, unitOf } from '../../../lib/seeded'
import { LINE_PATTERN } from '../../../lib/validate'
import type { FlowNode } from '../nodes'
import type { NodeSpec } from './spec'

const LINE = new RegExp(LINE_PATTERN)

/** A random branch, by weight (an A/B test of paths). */
export const split: NodeSpec = {
  members: ['branches'],
  check(c) {
    const b = c.node.branches
    if (!Array.isArray(b) || b.length < 2 || b.length > 10)
      return c.err('branches', 'must be 2 to 10 branches [{weight, next, name?}]')
    for (const [i, branch] of b.entries()) {
      const br = branch as Record<string, unknown>
      if (!br || typeof br !== 'object') {
        c.err(`branches[${i}]`, 'must be {weight, next, name?}')
        continue
      }
      for (const k of Object.keys(br))
        if (!['weight', 'next', 'name'].includes(k)) c.err(`branches[${i}].${k}`, 'is not a known member')
      if (typeof br.weight !== 'number' || !(br.weight > 0) || br.weight > 1_000_000)
        c.err(`branches[${i}].weight`, 'must be a number above 0')
      if (typeof br.next !== 'string') c.err(`branches[${i}].next`, 'is required (a node id)')
      if (
        br.name !== undefined &&
        (typeof br.name !== 'string' || br.name.length > 200 || !LINE.test(br.name))
      )
        c.err(`branches[${i}].name`, 'must be one line of at most 200 characters')
    }
  },
  step(s, node) {
    s.count(node)
    const { index, branch } = pickBranch(node, `${s.flow.id}:${node.id}:${s.contact.id}`)
    s.history({ node: node.id, branch: index, ...(branch.name ? { branch_name: branch.name } : {}) }, node.id)
    return branch.next
  },
}

/**
 * The branch a contact takes, drawn from the flow, node and contact: the same contact always
 * takes the same branch of a split (an entry run again, a step retried after a crash), as an A/B
 * campaign's recipient always gets the same variant.
 */
function pickBranch(node: FlowNode, key: string) {
  const branches = node.branches as { weight: number; next: string; name?: string }[]
  const index = pickByWeight(
    branches.map((b) => b.weight),
    unitOf(key),
  )
  return { index, branch: branches[index]! }
}
