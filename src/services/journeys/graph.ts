import type { FieldError } from '../../errors'
import { a } from '../../lib/article'
import { notAnIdMessage, parseId } from '../../lib/ids'
import { LINE_PATTERN, notOneOf, quoteValue } from '../../lib/validate'
import { allowedMembers, isWaiting, NODE_SPECS } from '../flows/node-types'
import type { GraphRefs } from '../flows/node-types/spec'
import { edgesOf, JOURNEY_EVENTS, NODE_TYPES, type NodeType } from '../flows/nodes'

export type { GraphRefs } from '../flows/node-types/spec'

// The checks of a journey graph. On save: known node types, members valid for
// their type (references to this client's records, durations, times of day, rule groups as in
// segments), no dangling edge, no cycle without a wait. On activation, besides: exactly one
// trigger, every branch of a branching node set, every node reachable from the trigger. Every
// failure names the node and member, `nodes[s1].template_id`; two triggers name each trigger node.

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/
const LINE = new RegExp(LINE_PATTERN)
export const MAX_NODES = 200

export function checkGraph(raw: unknown[], refs: GraphRefs, mode: 'save' | 'activate'): FieldError[] {
  const errors: FieldError[] = []
  if (raw.length > MAX_NODES)
    return [{ field: 'nodes', message: `has ${raw.length} nodes; at most ${MAX_NODES}` }]
  const ids = new Map<string, Record<string, unknown>>()
  const at = (node: Record<string, unknown>, i: number) =>
    typeof node.id === 'string' && ID_RE.test(node.id) ? `nodes[${node.id}]` : `nodes[${i}]`

  raw.forEach((value, i) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ field: `nodes[${i}]`, message: 'must be an object {id, type, ...}' })
      return
    }
    const node = value as Record<string, unknown>
    const path = at(node, i)
    if (typeof node.id !== 'string' || !ID_RE.test(node.id))
      errors.push({ field: `${path}.id`, message: 'is required: 1 to 64 letters, digits, _ or -' })
    else if (ids.has(node.id)) errors.push({ field: `${path}.id`, message: `is used by another node` })
    else ids.set(node.id, node)
    if (!(NODE_TYPES as readonly unknown[]).includes(node.type)) {
      errors.push({ field: `${path}.type`, message: notOneOf(node.type, NODE_TYPES) })
      return
    }
    checkMembers(node, node.type as NodeType, path, refs, errors)
  })

  // Edges name existing nodes.
  for (const [id, node] of ids)
    for (const e of edgesOf(node))
      if (!ids.has(e.to))
        errors.push({ field: `nodes[${id}].${e.member}`, message: `no node has the id ${quoteValue(e.to)}` })
      else if (e.to === id && !isWaiting(node.type))
        errors.push({
          field: `nodes[${id}].${e.member}`,
          message: 'a node cannot lead to itself (put a wait in between)',
        })

  // No cycle without a wait: a depth-first walk over the edges that do not leave a wait.
  const state = new Map<string, 1 | 2>()
  const cycleAt = new Set<string>()
  const visit = (id: string, trail: string[]) => {
    state.set(id, 1)
    const node = ids.get(id)!
    if (!isWaiting(node.type))
      for (const e of edgesOf(node)) {
        if (!ids.has(e.to) || e.to === id) continue
        const s = state.get(e.to)
        if (s === 1 && !cycleAt.has(id)) {
          cycleAt.add(id)
          errors.push({
            field: `nodes[${id}].${e.member}`,
            message: `forms a cycle with no wait (${[...trail.slice(trail.indexOf(e.to)), id, e.to].join(' → ')})`,
          })
        } else if (s === undefined) visit(e.to, [...trail, id])
      }
    state.set(id, 2)
  }
  for (const id of ids.keys()) if (!state.has(id)) visit(id, [])

  if (mode === 'activate') errors.push(...activationErrors(ids))
  return errors
}

function activationErrors(ids: Map<string, Record<string, unknown>>): FieldError[] {
  const errors: FieldError[] = []
  const triggers = [...ids.values()].filter((n) => n.type === 'trigger')
  // None: the graph as a whole is at fault. Several: each of them is, so each is named.
  if (triggers.length === 0) return [{ field: 'nodes', message: 'needs exactly one trigger node; it has 0' }]
  if (triggers.length > 1)
    return triggers.map((n) => ({
      field: `nodes[${n.id}]`,
      message: `is one of ${triggers.length} trigger nodes; a journey needs exactly one`,
    }))
  for (const [id, node] of ids) {
    const need = (member: string) => {
      if (typeof node[member] !== 'string')
        errors.push({
          field: `nodes[${id}].${member}`,
          message: 'is required to activate (every path must end)',
        })
    }
    for (const member of NODE_SPECS[node.type as NodeType]?.branches ?? []) need(member)
  }
  // Every node is reachable from the trigger.
  const seen = new Set<string>()
  const stack = [triggers[0]!.id as string]
  while (stack.length) {
    const id = stack.pop()!
    if (seen.has(id) || !ids.has(id)) continue
    seen.add(id)
    for (const e of edgesOf(ids.get(id)!)) stack.push(e.to)
  }
  for (const id of ids.keys())
    if (!seen.has(id)) errors.push({ field: `nodes[${id}]`, message: 'is not reachable from the trigger' })
  return errors
}

function checkMembers(
  node: Record<string, unknown>,
  type: NodeType,
  path: string,
  refs: GraphRefs,
  errors: FieldError[],
): void {
  const err = (member: string, message: string) => errors.push({ field: `${path}.${member}`, message })
  const allowed = allowedMembers(type)
  for (const k of Object.keys(node)) if (!allowed.includes(k)) err(k, `is not a member of ${a(type)} node`)
  for (const m of ['next', 'yes', 'no', 'on_event', 'on_timeout']) {
    const v = node[m]
    if (v !== undefined && v !== null && typeof v !== 'string') err(m, 'must be a string')
  }
  if (
    node.label !== undefined &&
    (typeof node.label !== 'string' || node.label.length > 200 || !LINE.test(node.label))
  )
    err('label', 'must be one line of at most 200 characters')
  if (node.position !== undefined) {
    const p = node.position as { x?: unknown; y?: unknown } | null
    if (
      !p ||
      typeof p !== 'object' ||
      typeof p.x !== 'number' ||
      typeof p.y !== 'number' ||
      Object.keys(p).length !== 2
    )
      err('position', 'must be {x, y} (numbers)')
  }
  NODE_SPECS[type].check?.({
    node,
    refs,
    err,
    ref(member, what, exists, required) {
      const v = node[member]
      if (v === undefined || v === null) {
        if (required) err(member, `is required (${a(what)} id)`)
        return null
      }
      const id = typeof v === 'string' ? parseId(v) : null
      if (id === null) {
        err(member, notAnIdMessage(what))
        return null
      }
      if (!exists(id)) err(member, `no such ${what} in this client`)
      return id
    },
    rules: () => checkRules(node, path, refs, errors),
    event(required) {
      const v = node.event
      if (v === undefined && !required) return
      if (typeof v !== 'string' || !JOURNEY_EVENTS[v]) err('event', notOneOf(v, Object.keys(JOURNEY_EVENTS)))
    },
  })
}

/** `match` and `rule_groups` as in segments, each failure below the node's path. */
function checkRules(node: Record<string, unknown>, path: string, refs: GraphRefs, errors: FieldError[]) {
  const match = node.match ?? 'all'
  if (match !== 'all' && match !== 'any')
    errors.push({ field: `${path}.match`, message: notOneOf(match, ['all', 'any']) })
  if (!Array.isArray(node.rule_groups) || node.rule_groups.length === 0 || node.rule_groups.length > 20) {
    errors.push({
      field: `${path}.rule_groups`,
      message: 'must be 1 to 20 groups [{match, rules: [...]}] as in segments',
    })
    return
  }
  const shapeErrors: FieldError[] = []
  node.rule_groups.forEach((g, i) => {
    const group = g as { match?: unknown; rules?: unknown }
    if (
      !group ||
      typeof group !== 'object' ||
      (group.match !== 'all' && group.match !== 'any') ||
      !Array.isArray(group.rules) ||
      group.rules.length === 0 ||
      group.rules.length > 50 ||
      group.rules.some((r) => !r || typeof r !== 'object' || Array.isArray(r))
    )
      shapeErrors.push({
        field: `${path}.rule_groups[${i}]`,
        message: 'must be {match: all|any, rules: [1 to 50 rule objects]}',
      })
    else
      for (const k of Object.keys(group))
        if (k !== 'match' && k !== 'rules')
          shapeErrors.push({ field: `${path}.rule_groups[${i}].${k}`, message: 'is not a known member' })
  })
  if (shapeErrors.length) return void errors.push(...shapeErrors)
  for (const e of refs.rules(match === 'any' ? 'any' : 'all', node.rule_groups))
    errors.push({ field: `${path}.${e.field}`, message: e.message })
}
