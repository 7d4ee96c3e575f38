import type { Ctx } from '../../context'
import type { JourneyRow } from '../../db/schema'
import { invalidField, notFound, ServiceError } from '../../errors'
import { iso } from '../../lib/time'
import { defineVerb } from '../verbs/define'
import { DeleteJourneyNodeInput, PutJourneyNodeInput } from './inputs'
import { findJourneyRow, updateJourney } from './lifecycle'

// The portal's node editor changes one node at a time. Each edit reads the graph, changes the
// one node and saves the graph through updateJourney (every check of a save, errors naming
// `nodes[id].member`) inside the verb's one transaction, so two editors never write back a
// stale array over each other. An editor that sends the journey's updated_at its form was drawn
// from gets 409 CONFLICT when the journey changed since. Portal-only: the spec names no REST
// operation for single nodes (a REST caller saves the whole array with PATCH).

type Node = Record<string, unknown>

/** 409 CONFLICT when the journey changed after the caller's form was drawn. */
function assertUnchanged(row: JourneyRow, expected: string | undefined): void {
  if (expected === undefined || Date.parse(expected) === row.updatedAt) return
  throw new ServiceError(
    'CONFLICT',
    `The journey was changed at ${iso(row.updatedAt)}, after this form was opened; reload it and apply the change again`,
    { updated_at: iso(row.updatedAt), expected_updated_at: expected },
  )
}

export async function putJourneyNode(
  ctx: Ctx,
  id: string,
  node: Node,
  options: { expectedUpdatedAt?: string; mustBeNew?: boolean },
) {
  const row = await findJourneyRow(ctx, id)
  assertUnchanged(row, options.expectedUpdatedAt)
  const nodes = row.nodes as Node[]
  const at = typeof node.id === 'string' ? nodes.findIndex((n) => n.id === node.id) : -1
  if (at >= 0 && options.mustBeNew)
    throw invalidField(`nodes[${node.id as string}].id`, 'is used by another node')
  const next = at >= 0 ? nodes.map((n, i) => (i === at ? node : n)) : [...nodes, node]
  return await updateJourney(ctx, id, { nodes: next })
}

export async function deleteJourneyNode(ctx: Ctx, id: string, nodeId: string, expectedUpdatedAt?: string) {
  const row = await findJourneyRow(ctx, id)
  assertUnchanged(row, expectedUpdatedAt)
  const nodes = row.nodes as Node[]
  if (!nodes.some((n) => n.id === nodeId)) throw notFound('Node')
  return await updateJourney(ctx, id, { nodes: nodes.filter((n) => n.id !== nodeId) })
}

export const putJourneyNodeVerb = defineVerb({
  name: 'journeys.nodes.put',
  scope: 'journeys:write',
  input: PutJourneyNodeInput,
  mutates: true,
  run: async (ctx, { id, node, expected_updated_at, must_be_new }) =>
    await putJourneyNode(ctx, id, node, { expectedUpdatedAt: expected_updated_at, mustBeNew: must_be_new }),
})

export const deleteJourneyNodeVerb = defineVerb({
  name: 'journeys.nodes.delete',
  scope: 'journeys:write',
  input: DeleteJourneyNodeInput,
  mutates: true,
  destructive: true,
  run: async (ctx, { id, node_id, expected_updated_at }) =>
    await deleteJourneyNode(ctx, id, node_id, expected_updated_at),
})
