import type { FieldError } from '../../errors'
import { a } from '../../lib/article'
import { MAX_WAIT_MS, parseIsoDuration, parseTimeOfDay } from '../../lib/duration'
import { CAMPAIGN_CHANNELS } from '../../lib/enums'
import { type IdKind, notAnIdMessage, parseId } from '../../lib/ids'
import { LINE_PATTERN, notOneOf, quoteValue } from '../../lib/validate'
import {
  allowedMembers,
  edgesOf,
  JOURNEY_EVENTS,
  NODE_TYPES,
  type NodeType,
  TRIGGERS,
  WAITING_TYPES,
} from '../flows/nodes'

// The checks of a journey graph. On save: known node types, members valid for
// their type (references to this client's records, durations, times of day, rule groups as in
// segments), no dangling edge, no cycle without a wait. On activation, besides: exactly one
// trigger, every branch of a branching node set, every node reachable from the trigger. Every
// failure names the node and member, `nodes[s1].template_id`; two triggers name each trigger node.

/** What the checks look up in the database, for the journey's own client. */
export interface GraphRefs {
  /** The template's channel, or null when the client has no such template. */
  templateChannel(id: string): string | null
  sender(id: string): boolean
  list(id: string): boolean
  segment(id: string): boolean
  webhook(id: string): boolean
  campaign(id: string): boolean
  /** Rule groups checked as a segment's (errors with paths below `rule_groups`). */
  rules(match: 'all' | 'any', groups: unknown): FieldError[]
  timeZone(name: string): boolean
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/
const LINE = new RegExp(LINE_PATTERN)
export const MAX_NODES = 200
const CONTACT_FIELDS = ['first_name', 'last_name', 'company', 'timezone', 'status', 'custom_fields']
const SETTABLE_STATUSES = ['subscribed', 'unsubscribed', 'blocked']

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
      else if (e.to === id && !WAITING_TYPES.has(node.type as string))
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
    if (!WAITING_TYPES.has(node.type as string))
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
    const branches = { condition: ['yes', 'no'], wait_for_event: ['on_event', 'on_timeout'] }[
      node.type as string
    ]
    for (const member of branches ?? []) need(member)
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
  const optString = (member: string) => {
    const v = node[member]
    if (v !== undefined && v !== null && typeof v !== 'string') err(member, 'must be a string')
  }
  for (const m of ['next', 'yes', 'no', 'on_event', 'on_timeout']) optString(m)
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
  /** A reference member: an id of a record the lookup finds; returns the UUID. */
  const ref = (member: string, what: IdKind, exists: (id: string) => boolean, required: boolean) => {
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
  }
  const rules = () => {
    const match = node.match ?? 'all'
    if (match !== 'all' && match !== 'any') err('match', notOneOf(match, ['all', 'any']))
    if (!Array.isArray(node.rule_groups) || node.rule_groups.length === 0 || node.rule_groups.length > 20) {
      err('rule_groups', 'must be 1 to 20 groups [{match, rules: [...]}] as in segments')
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
  const event = (required: boolean) => {
    const v = node.event
    if (v === undefined && !required) return
    if (typeof v !== 'string' || !JOURNEY_EVENTS[v]) err('event', notOneOf(v, Object.keys(JOURNEY_EVENTS)))
  }

  switch (type) {
    case 'trigger': {
      const kind = node.trigger
      if (!(TRIGGERS as readonly unknown[]).includes(kind)) {
        err('trigger', notOneOf(kind, TRIGGERS))
        break
      }
      const only = (members: string[]) => {
        for (const m of ['segment_id', 'list_id', 'event', 'campaign_id'])
          if (!members.includes(m) && node[m] !== undefined)
            err(m, `does not apply to ${a(String(kind))} trigger`)
      }
      if (kind === 'segment_entered') {
        only(['segment_id'])
        ref('segment_id', 'segment', refs.segment, true)
      } else if (kind === 'list_joined') {
        only(['list_id'])
        ref('list_id', 'list', refs.list, true)
      } else if (kind === 'event') {
        only(['event', 'campaign_id'])
        event(true)
        ref('campaign_id', 'campaign', refs.campaign, false)
      } else only([])
      break
    }
    case 'send': {
      const channel = node.channel ?? 'email'
      if (!(CAMPAIGN_CHANNELS as readonly unknown[]).includes(channel))
        err('channel', notOneOf(channel, CAMPAIGN_CHANNELS))
      const id = ref('template_id', 'template', (id) => refs.templateChannel(id) !== null, true)
      if (id && typeof channel === 'string') {
        const tc = refs.templateChannel(id)
        if (tc !== null && tc !== channel)
          err('template_id', `is ${a(tc)} template; this node sends ${channel}`)
      }
      if (channel !== 'email' && node.sender_id !== undefined) err('sender_id', 'applies to email only')
      ref('sender_id', 'sender', refs.sender, false)
      break
    }
    case 'wait': {
      const hasDuration = node.duration !== undefined
      const hasUntil = node.until !== undefined
      if (hasDuration === hasUntil)
        err(
          hasDuration ? 'until' : 'duration',
          'give either duration (ISO 8601, e.g. P2D) or until (HH:MM), not both',
        )
      const wait = typeof node.duration === 'string' ? parseIsoDuration(node.duration) : null
      if (hasDuration && wait === null)
        err(
          'duration',
          `${quoteValue(node.duration)} is not an ISO 8601 duration in weeks, days, hours, minutes or seconds (e.g. P2D, PT4H, PT30S)`,
        )
      else if (hasDuration && wait! > MAX_WAIT_MS) err('duration', 'must be at most 365 days')
      if (hasUntil && (typeof node.until !== 'string' || parseTimeOfDay(node.until) === null))
        err('until', `${quoteValue(node.until)} is not a time of day HH:MM (24-hour)`)
      break
    }
    case 'wait_for_event': {
      event(true)
      const timeout = typeof node.timeout === 'string' ? parseIsoDuration(node.timeout) : null
      if (timeout === null)
        err('timeout', `${quoteValue(node.timeout)} is not an ISO 8601 duration (e.g. P3D)`)
      else if (timeout > MAX_WAIT_MS) err('timeout', 'must be at most 365 days')
      break
    }
    case 'condition':
    case 'goal':
      rules()
      break
    case 'split': {
      const b = node.branches
      if (!Array.isArray(b) || b.length < 2 || b.length > 10) {
        err('branches', 'must be 2 to 10 branches [{weight, next, name?}]')
        break
      }
      b.forEach((branch, i) => {
        const br = branch as Record<string, unknown>
        if (!br || typeof br !== 'object') {
          err(`branches[${i}]`, 'must be {weight, next, name?}')
          return
        }
        for (const k of Object.keys(br))
          if (!['weight', 'next', 'name'].includes(k)) err(`branches[${i}].${k}`, 'is not a known member')
        if (typeof br.weight !== 'number' || !(br.weight > 0) || br.weight > 1_000_000)
          err(`branches[${i}].weight`, 'must be a number above 0')
        if (typeof br.next !== 'string') err(`branches[${i}].next`, 'is required (a node id)')
        if (
          br.name !== undefined &&
          (typeof br.name !== 'string' || br.name.length > 200 || !LINE.test(br.name))
        )
          err(`branches[${i}].name`, 'must be one line of at most 200 characters')
      })
      break
    }
    case 'update_contact': {
      const f = node.fields as Record<string, unknown> | undefined
      if (!f || typeof f !== 'object' || Array.isArray(f) || Object.keys(f).length === 0) {
        err('fields', `must be an object with some of: ${CONTACT_FIELDS.join(', ')}`)
        break
      }
      for (const [k, v] of Object.entries(f)) {
        const p = `fields.${k}`
        if (!CONTACT_FIELDS.includes(k))
          err(p, `is not a field a journey may set; use: ${CONTACT_FIELDS.join(', ')}`)
        else if (k === 'status') {
          if (!SETTABLE_STATUSES.includes(v as string)) err(p, notOneOf(v, SETTABLE_STATUSES))
        } else if (k === 'timezone') {
          if (v !== null && (typeof v !== 'string' || !refs.timeZone(v)))
            err(p, 'must be an IANA time zone or null')
        } else if (k === 'custom_fields') {
          if (!v || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length > 100)
            err(p, 'must be an object of at most 100 members (null removes one)')
          else
            for (const [ck, cv] of Object.entries(v))
              if (ck.length === 0 || ck.length > 64) err(`${p}.${ck}`, 'keys are 1 to 64 characters')
              else if (cv !== null && JSON.stringify(cv).length > 2048) err(`${p}.${ck}`, 'is over 2 KiB')
        } else if (v !== null && (typeof v !== 'string' || v.length > 200 || !LINE.test(v)))
          err(p, 'must be one line of at most 200 characters, or null')
      }
      break
    }
    case 'add_to_list':
    case 'remove_from_list':
      ref('list_id', 'list', refs.list, true)
      break
    case 'webhook':
      ref('webhook_id', 'webhook', refs.webhook, true)
      break
    case 'exit':
      break
  }
}
