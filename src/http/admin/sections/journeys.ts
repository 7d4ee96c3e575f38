import { ServiceError } from '../../../errors'
import { CAMPAIGN_CHANNELS, JOURNEY_STATUSES } from '../../../lib/enums'
import { NODE_SPECS } from '../../../services/flows/node-types'
import { JOURNEY_EVENTS, NODE_TYPES, type NodeType, TRIGGERS } from '../../../services/flows/nodes'
import { nodesEditable } from '../../../services/journeys/lifecycle'
import { deleteJourneyNodeVerb, putJourneyNodeVerb } from '../../../services/journeys/node-verbs'
import {
  activateJourneyVerb,
  archiveJourneyVerb,
  createJourneyVerb,
  getJourneyVerb,
  journeyStatsVerb,
  listEnrollmentsVerb,
  listJourneysVerb,
  pauseJourneyVerb,
} from '../../../services/journeys/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { listSegmentsVerb } from '../../../services/segments/verbs'
import { listTemplatesVerb } from '../../../services/templates/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { listWebhooksVerb } from '../../../services/webhooks/verbs'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { edgesOf, journeySvg } from './journey-graph'
import { indexRoute, needsWorkspace, nextPageUrl, queryValue } from './links'

// Journeys: the list; a journey's page with its graph drawn as a flow (SVG, per-node
// counts), activate / pause / archive, and each contact's path; a node editor (one form per
// node type) whose save and removal go through journeys.nodes.put / .delete (one node, every
// check of a save; messages shown on the node and member they name, `nodes[s1].template_id`).
// Each form carries the journey's updated_at, so an edit made meanwhile answers 409.

const PATH = '/admin/journeys'
type Node = Record<string, unknown> & { id: string; type: string }
type Journey = Awaited<ReturnType<typeof getJourneyVerb.run>>

/** Members edited as JSON (their shape is a small document of its own). */
const JSON_MEMBERS = new Set(['rule_groups', 'branches', 'fields', 'position'])
/** Members that name another node. */
const EDGE_MEMBERS = new Set(['next', 'yes', 'no', 'on_event', 'on_timeout'])
const HINTS: Record<string, string> = {
  duration: 'ISO 8601, e.g. P2D, PT4H, PT30S',
  until: 'a time of day HH:MM in the contact’s time zone, else the client’s (Clients page), else UTC',
  timeout: 'ISO 8601, e.g. P3D',
  rule_groups:
    'as in segments: [{"match": "all", "rules": [{"field": "custom.plan", "operator": "eq", "value": "pro"}]}]',
  branches: '[{"weight": 1, "next": "a", "name": "A"}, {"weight": 1, "next": "b", "name": "B"}]',
  fields: '{"company": "Acme", "custom_fields": {"plan": "pro"}}',
  campaign_id: 'optional: only events of this campaign',
}

/** Validation details by node id and member: `nodes[s1].template_id` → errors.s1.template_id. */
function nodeErrors(err: ServiceError): {
  byNode: Record<string, Record<string, string>>
  general: string[]
} {
  const byNode: Record<string, Record<string, string>> = {}
  const general: string[] = []
  for (const d of (Array.isArray(err.details) ? err.details : []) as { field: string; message: string }[]) {
    const m = /^nodes\[([^\]]+)\](?:\.([A-Za-z_]+))?/.exec(d.field)
    if (!m) {
      general.push(`${d.field}: ${d.message}`)
      continue
    }
    const member = m[2] ?? '_node'
    byNode[m[1]!] ??= {}
    byNode[m[1]!]![member] ??=
      d.field === `nodes[${m[1]}].${member}` || d.field === `nodes[${m[1]}]`
        ? d.message
        : `${d.field.slice(d.field.indexOf(']') + 2)}: ${d.message}`
  }
  return { byNode, general }
}

const isValidation = (err: unknown): err is ServiceError =>
  err instanceof ServiceError && err.code === 'VALIDATION_FAILED'

async function journeyPage(
  req: PortalRequest,
  errors?: { byNode: Record<string, Record<string, string>>; general: string[] },
  status = 200,
) {
  const id = req.params.id!
  const j = await invoke(getJourneyVerb, req.ctx, { id })
  const [stats, enrollments] = await Promise.all([
    await invoke(journeyStatsVerb, req.ctx, { id }),
    await invoke(listEnrollmentsVerb, req.ctx, { id, limit: 50, cursor: queryValue(req, 'cursor') }),
  ])
  const counts = new Map(stats.nodes.map((n) => [n.id, n]))
  // A node the graph does not hold (one being added, named by its id, or by its position when
  // the id itself is refused) has no row to carry its errors: they go above the table.
  const known = new Set((j.nodes as Node[]).map((n) => n.id))
  const general = [...(errors?.general ?? [])]
  for (const [node, members] of Object.entries(errors?.byNode ?? {}))
    if (!known.has(node))
      for (const [member, message] of Object.entries(members))
        general.push(`New node “${node}”${member === '_node' ? '' : ` · ${member}`}: ${message}`)
  const nodes = (j.nodes as Node[]).map((n) => ({
    id: n.id,
    type: n.type,
    label: typeof n.label === 'string' ? n.label : undefined,
    passed: counts.get(n.id)?.passed ?? 0,
    waiting: counts.get(n.id)?.waiting ?? 0,
    edges: edgesOf(n),
    error: Boolean(errors?.byNode[n.id]),
  }))
  return page(
    'pages/journeys/show',
    j.name,
    {
      journey: j,
      stats,
      svg: journeySvg(nodes, `The graph of ${j.name}`),
      nodes: nodes.map((n) => ({
        ...n,
        summary: summaryOf((j.nodes as Node[]).find((x) => x.id === n.id)!),
        messages: (counts.get(n.id) as { messages?: unknown } | undefined)?.messages ?? null,
        errors: Object.entries(errors?.byNode[n.id] ?? {}).map(([member, message]) => ({ member, message })),
      })),
      general_errors: general,
      enrollments: enrollments.data.map((e) => ({ ...e, path: e.history.map((h) => h.node).join(' → ') })),
      enrollments_total: enrollments.pagination.total,
      next_url: nextPageUrl(`${PATH}/${j.id}`, {}, enrollments.pagination.next_cursor),
      node_types: NODE_TYPES,
      can_edit: nodesEditable(j.status),
    },
    status,
  )
}

/** One line about a node for the table beside the graph. */
function summaryOf(n: Node): string {
  const bits: string[] = []
  for (const k of ['trigger', 'channel', 'duration', 'until', 'event', 'timeout'])
    if (typeof n[k] === 'string') bits.push(`${k} ${n[k]}`)
  return bits.join(', ')
}

async function choices(req: PortalRequest) {
  const [templates, lists, segments, webhooks] = await Promise.all([
    invoke(listTemplatesVerb, req.ctx, { limit: 200 }).then((r) => r.data),
    invoke(listListsVerb, req.ctx, { limit: 200 }).then((r) => r.data),
    invoke(listSegmentsVerb, req.ctx, { limit: 200 }).then((r) => r.data),
    invoke(listWebhooksVerb, req.ctx, { limit: 200 })
      .then((r) => (r as { data: { id: string; url: string }[] }).data)
      .catch(() => []),
  ])
  const opt = (rows: { id: string; name?: string; url?: string; channel?: string }[]) =>
    rows.map((r) => ({
      value: r.id,
      label: r.name ? (r.channel ? `${r.name} (${r.channel})` : r.name) : (r.url ?? r.id),
    }))
  return {
    template_id: opt(templates as never),
    list_id: opt(lists as never),
    segment_id: opt(segments as never),
    webhook_id: opt(webhooks as never),
    trigger: TRIGGERS.map((v) => ({ value: v, label: v })),
    channel: CAMPAIGN_CHANNELS.map((v) => ({ value: v, label: v })),
    event: Object.keys(JOURNEY_EVENTS).map((v) => ({ value: v, label: v })),
    match: ['all', 'any'].map((v) => ({ value: v, label: v })),
  }
}

/** The form of one node: a field per member of its type. */
async function nodeForm(
  req: PortalRequest,
  j: Journey,
  node: Node,
  errors: Record<string, string> = {},
  given?: Record<string, string>,
  status = 200,
  isNew = false,
) {
  const options = await choices(req)
  const others = (j.nodes as Node[])
    .filter((n) => n.id !== node.id)
    .map((n) => ({ value: n.id, label: `${n.id} (${n.type})` }))
  const fields = ['label', ...NODE_SPECS[node.type as NodeType].members].map((member) => {
    const raw = node[member]
    const value = given
      ? (given[member] ?? '')
      : raw === undefined
        ? ''
        : JSON_MEMBERS.has(member)
          ? JSON.stringify(raw, null, 2)
          : String(raw)
    const kind = JSON_MEMBERS.has(member)
      ? 'json'
      : EDGE_MEMBERS.has(member) || member in options
        ? 'select'
        : 'text'
    const list = EDGE_MEMBERS.has(member)
      ? others
      : ((options as Record<string, { value: string; label: string }[]>)[member] ?? [])
    return {
      member,
      value,
      kind,
      options: list.map((o) => ({ ...o, selected: o.value === value })),
      hint: HINTS[member] ?? '',
      error: errors[member] ?? '',
    }
  })
  return page(
    'pages/journeys/node',
    `${j.name}: ${node.id}`,
    // The version the form was first drawn from stays through its 422s (a 409 brings the new one).
    { journey: j, node, fields, errors, is_new: isNew, version: given?.updated_at ?? j.updated_at },
    status,
  )
}

/** The node a form describes: each filled member (JSON ones parsed); empty members left out. */
function nodeFromForm(req: PortalRequest, node: Node): { node: Node; errors: Record<string, string> } {
  const out: Node = { id: node.id, type: node.type }
  const errors: Record<string, string> = {}
  for (const member of ['label', ...NODE_SPECS[node.type as NodeType].members]) {
    const v = text(req, member)?.trim()
    if (!v) continue
    if (JSON_MEMBERS.has(member))
      try {
        out[member] = JSON.parse(v)
      } catch {
        errors[member] = 'is not valid JSON'
      }
    else out[member] = v
  }
  return { node: out, errors }
}

/** The journey's updated_at the submitted form was drawn from (a hidden field). */
const versionOf = (req: PortalRequest) => text(req, 'updated_at') || undefined

const isConflict = (err: unknown): err is ServiceError =>
  err instanceof ServiceError && err.code === 'CONFLICT'

const formValues = (req: PortalRequest) => values(req) as Record<string, string>
/** What was typed, on the journey's current version (after a 409). */
const freshValues = (req: PortalRequest, j: Journey) => ({ ...formValues(req), updated_at: j.updated_at })

export const journeysSection = defineSection({
  path: PATH,
  title: 'Journeys',
  order: 38,
  group: 'messaging',
  routes: [
    indexRoute(PATH, listJourneysVerb, {
      template: 'pages/journeys/index',
      title: 'Journeys',
      rows: 'journeys',
      filter: { name: 'status', allowed: JOURNEY_STATUSES },
    }),
    {
      method: 'GET',
      path: `${PATH}/new`,
      handler: (req) =>
        page('pages/journeys/new', 'New journey', {
          errors: {},
          values: {},
          no_workspace: needsWorkspace(req),
        }),
    },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          createJourneyVerb,
          {
            name: text(req, 'name') ?? '',
            allow_reentry: text(req, 'allow_reentry') === 'on',
            // A new journey starts with its trigger; nodes are added on its page.
            nodes: [{ id: 'trigger', type: 'trigger', trigger: 'manual' }],
          },
          {
            done: (j) =>
              redirect(`${PATH}/${j.id}`, {
                kind: 'success',
                message: `Created the journey “${j.name}” (a draft).`,
              }),
            retry: (errors: FieldErrors) =>
              page('pages/journeys/new', 'New journey', {
                errors,
                values: values(req),
                no_workspace: needsWorkspace(req),
              }),
          },
        ),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await journeyPage(req) },
    ...(['activate', 'pause'] as const).map((action) => ({
      method: 'POST' as const,
      path: `${PATH}/:id/${action}`,
      handler: async (req: PortalRequest) => {
        const verb = action === 'activate' ? activateJourneyVerb : pauseJourneyVerb
        try {
          const j = await invoke(verb, req.ctx, { id: req.params.id! })
          return redirect(`${PATH}/${j.id}`, {
            kind: 'success',
            message:
              action === 'activate'
                ? 'The journey is active.'
                : 'The journey is paused: no step runs until it is activated again.',
          })
        } catch (err) {
          // The activation checks name nodes: show them on the graph and in the node table.
          if (isValidation(err)) return await journeyPage(req, nodeErrors(err), 422)
          throw err
        }
      },
    })),
    {
      method: 'GET',
      path: `${PATH}/:id/archive`,
      handler: async (req) =>
        page('pages/journeys/archive', 'Archive journey', {
          journey: await invoke(getJourneyVerb, req.ctx, { id: req.params.id! }),
        }),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/archive`,
      handler: async (req) => {
        const j = await invoke(archiveJourneyVerb, req.ctx, { id: req.params.id! })
        return redirect(`${PATH}/${j.id}`, {
          kind: 'success',
          message: 'Archived: everyone in it has exited.',
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/nodes`,
      handler: async (req) => {
        const j = await invoke(getJourneyVerb, req.ctx, { id: req.params.id! })
        const id = text(req, 'node_id')?.trim() ?? ''
        const type = text(req, 'type') ?? ''
        try {
          await invoke(putJourneyNodeVerb, req.ctx, {
            id: j.id,
            node: { id, type },
            // Adding builds on nothing the form showed, so no version: only an existing id is refused.
            must_be_new: true,
          })
        } catch (err) {
          if (!isValidation(err)) throw err
          const e = nodeErrors(err)
          // An id the save refuses is named by the node's position (the end of the graph).
          const at = String(j.nodes.length)
          if (e.byNode[at] && !(j.nodes as Node[]).some((n) => n.id === at)) {
            e.byNode[id] = e.byNode[at]!
            delete e.byNode[at]
          }
          // A new node is refused on its members until they are given: show its form with them.
          const mine = e.byNode[id]
          if (mine && !mine.id && !mine.type && Object.keys(e.byNode).length === 1 && e.general.length === 0)
            return nodeForm(req, j, { id, type }, mine, undefined, 422, true)
          return await journeyPage(req, e, 422)
        }
        return redirect(`${PATH}/${j.id}/nodes/${encodeURIComponent(id)}`, {
          kind: 'success',
          message: `Added the ${type} node ${id}.`,
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/nodes/:node`,
      handler: async (req) => {
        const j = await invoke(getJourneyVerb, req.ctx, { id: req.params.id! })
        const node = (j.nodes as Node[]).find((n) => n.id === req.params.node)
        if (!node) throw new ServiceError('NOT_FOUND', 'Node not found')
        return nodeForm(req, j, node)
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/nodes/:node`,
      handler: async (req) => {
        const j = await invoke(getJourneyVerb, req.ctx, { id: req.params.id! })
        const found = (j.nodes as Node[]).find((n) => n.id === req.params.node)
        // A node being added (its form came from "Add node") is new until it saves.
        const newType = text(req, 'type')
        const isNew = !found && newType !== undefined && (NODE_TYPES as readonly string[]).includes(newType)
        const current: Node | undefined =
          found ?? (isNew ? { id: req.params.node!, type: newType! } : undefined)
        if (!current) throw new ServiceError('NOT_FOUND', 'Node not found')
        if (found && text(req, 'delete') === '1') {
          try {
            await invoke(deleteJourneyNodeVerb, req.ctx, {
              id: j.id,
              node_id: current.id,
              expected_updated_at: versionOf(req),
            })
          } catch (err) {
            if (isValidation(err)) return await journeyPage(req, nodeErrors(err), 422)
            if (isConflict(err)) return nodeForm(req, j, current, { _node: err.message }, undefined, 409)
            throw err
          }
          return redirect(`${PATH}/${j.id}`, { kind: 'success', message: `Removed the node ${current.id}.` })
        }
        const { node, errors } = nodeFromForm(req, current)
        if (Object.keys(errors).length)
          return nodeForm(
            req,
            j,
            current,
            { ...errors, _summary: 'Some fields need attention.' },
            formValues(req),
            422,
            isNew,
          )
        try {
          await invoke(putJourneyNodeVerb, req.ctx, {
            id: j.id,
            node,
            must_be_new: isNew,
            expected_updated_at: versionOf(req),
          })
        } catch (err) {
          // Refused as a whole (the journey is active, or changed since the form was drawn): the
          // form again with what was typed, now on the current version, and why.
          if (err instanceof ServiceError && (err.code === 'INVALID_STATE' || err.code === 'CONFLICT'))
            return nodeForm(req, j, current, { _node: err.message }, freshValues(req, j), 409, isNew)
          if (!isValidation(err)) throw err
          const e = nodeErrors(err)
          const mine = e.byNode[current.id] ?? {}
          const elsewhere = [
            ...e.general,
            ...Object.entries(e.byNode)
              .filter(([k]) => k !== current.id)
              .flatMap(([k, v]) => Object.values(v).map((m) => `${k}: ${m}`)),
          ]
          return nodeForm(
            req,
            j,
            current,
            {
              ...mine,
              _summary: elsewhere.length
                ? `Other nodes: ${elsewhere.join('; ')}`
                : 'Some fields need attention.',
            },
            formValues(req),
            422,
            isNew,
          )
        }
        return redirect(`${PATH}/${j.id}`, {
          kind: 'success',
          message: `${isNew ? 'Added' : 'Saved'} the node ${current.id}.`,
        })
      },
    },
  ],
})
