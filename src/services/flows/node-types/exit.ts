import type { NodeSpec } from './spec'

/** The end of a path. */
export const exit: NodeSpec = {
  members: [],
  step(s, node) {
    s.count(node)
    s.history({ node: node.id }, node.id)
    return null
  },
}
