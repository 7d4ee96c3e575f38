import type { FlowNode } from '../nodes'
import { type NodeSpec, nextOf, type StepScope } from './spec'

const listStep = async (s: StepScope, node: FlowNode) => {
  s.count(node)
  await s.act.apply(node)
  s.history({ node: node.id }, node.id)
  return nextOf(node)
}

/** Puts the contact on a list (which may start list_joined journeys). */
export const addToList: NodeSpec = {
  members: ['list_id', 'next'],
  check: (c) => void c.ref('list_id', 'list', c.refs.list, true),
  step: listStep,
}

/** Takes the contact off a list. */
export const removeFromList: NodeSpec = {
  members: ['list_id', 'next'],
  check: (c) => void c.ref('list_id', 'list', c.refs.list, true),
  step: listStep,
}
