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
    const { index, branch } = pickBranch(node)
    s.history({ node: node.id, branch: index, ...(branch.name ? { branch_name: branch.name } : {}) }, node.id)
    return branch.next
  },
}

function pickBranch(node: FlowNode) {
  const branches = node.branches as { weight: number; next: string; name?: string }[]
  const total = branches.reduce((sum, b) => sum + b.weight, 0)
  let pick = Math.random() * total
  for (const [index, branch] of branches.entries()) {
    pick -= branch.weight
    if (pick < 0) return { index, branch }
  }
  return { index: branches.length - 1, branch: branches.at(-1)! }
}
