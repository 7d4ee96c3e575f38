import { describe, expect, test } from 'bun:test'
import { type Actor, withActor } from '../../../src/context'
import { ServiceError } from '../../../src/errors'
import { keyActor, userActor } from '../../../src/services/actors/actor'
import { deleteJourneyNodeVerb, putJourneyNodeVerb } from '../../../src/services/journeys/node-verbs'
import {
  activateJourneyVerb,
  createJourneyVerb,
  getJourneyVerb,
  pauseJourneyVerb,
} from '../../../src/services/journeys/verbs'
import { createTemplateVerb } from '../../../src/services/templates/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'

// The portal's node editor verbs: one node put or deleted inside one transaction, every check
// of a save naming `nodes[id].member`, a stale form answered 409 CONFLICT (even under a clock
// that stands still, so two edits in one millisecond still differ), and tenancy as everywhere.

const clock = testClock()
const app = await createTestApp({ clock })
const acme = await app.client('Acme')
const globex = await app.client('Globex')
const key = (clientId: string): Actor =>
  keyActor({
    id: `key-${clientId}`,
    clientId,
    scopes: ['journeys:write', 'templates:write'],
    tier: 'unlimited',
  })
const acmeCtx = withActor(app.ctx, key(acme), 'acme')
const globexCtx = withActor(app.ctx, key(globex), 'globex')
const viewerCtx = withActor(
  app.ctx,
  userActor({ id: 'viewer', role: 'viewer', clients: null, workspace: acme }),
  'viewer',
)

type J = { id: string; status: string; updated_at: string; nodes: Record<string, unknown>[] }
const trigger = { id: 'trigger', type: 'trigger', trigger: 'manual', next: 'x' }
const exit = { id: 'x', type: 'exit' }

async function draft(nodes: Record<string, unknown>[] = [trigger, exit]): Promise<J> {
  return (await invoke(createJourneyVerb, acmeCtx, { name: 'Trial', nodes })) as J
}

async function failure(p: Promise<unknown>): Promise<{ code: string; details: unknown; message: string }> {
  try {
    await p
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, details: err.details, message: err.message }
    throw err
  }
  throw new Error('expected the verb to refuse')
}

const template = (await invoke(createTemplateVerb, acmeCtx, {
  name: 'Welcome',
  subject: 'Hi',
  body_text: 'Hello',
})) as { id: string }
const foreignTemplate = (await invoke(createTemplateVerb, globexCtx, {
  name: 'Theirs',
  subject: 'Hi',
  body_text: 'Hello',
})) as { id: string }

describe('journeys.nodes.put', () => {
  test('adds a node, then replaces it in place; other nodes untouched', async () => {
    const j = await draft()
    const send = { id: 's1', type: 'send', template_id: template.id, next: 'x' }
    const added = (await invoke(putJourneyNodeVerb, acmeCtx, {
      id: j.id,
      node: send,
      expected_updated_at: j.updated_at,
    })) as J
    expect(added.nodes).toEqual([trigger, exit, send])
    const replaced = (await invoke(putJourneyNodeVerb, acmeCtx, {
      id: j.id,
      node: { ...send, label: 'Welcome' },
      expected_updated_at: added.updated_at,
    })) as J
    expect(replaced.nodes).toEqual([trigger, exit, { ...send, label: 'Welcome' }])
    // The clock stood still, yet each save moved the version.
    expect(Date.parse(replaced.updated_at)).toBeGreaterThan(Date.parse(added.updated_at))
    expect(Date.parse(added.updated_at)).toBeGreaterThan(Date.parse(j.updated_at))
  })

  test('a stale form answers 409 CONFLICT and writes nothing; without a version the edit applies', async () => {
    const j = await draft()
    const first = (await invoke(putJourneyNodeVerb, acmeCtx, {
      id: j.id,
      node: { ...trigger, label: 'editor A' },
      expected_updated_at: j.updated_at,
    })) as J
    // Editor B drew its form from the same version as A.
    const e = await failure(
      invoke(putJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node: { ...exit, label: 'editor B' },
        expected_updated_at: j.updated_at,
      }),
    )
    expect(e.code).toBe('CONFLICT')
    expect(e.details).toEqual({ updated_at: first.updated_at, expected_updated_at: j.updated_at })
    const del = await failure(
      invoke(deleteJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node_id: 'x',
        expected_updated_at: j.updated_at,
      }),
    )
    expect(del.code).toBe('CONFLICT')
    const now = (await invoke(getJourneyVerb, acmeCtx, { id: j.id })) as J
    expect(now.nodes).toEqual([{ ...trigger, label: 'editor A' }, exit])
    expect(now.updated_at).toBe(first.updated_at)
    await invoke(putJourneyNodeVerb, acmeCtx, { id: j.id, node: { ...exit, label: 'B' } })
    expect(((await invoke(getJourneyVerb, acmeCtx, { id: j.id })) as J).nodes[1]).toEqual({
      ...exit,
      label: 'B',
    })
  })

  test('graph errors name nodes[id].member, another client’s template included; nothing is written', async () => {
    const j = await draft()
    const missing = await failure(
      invoke(putJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node: { id: 's1', type: 'send', next: 'nowhere' },
      }),
    )
    expect(missing.code).toBe('VALIDATION_FAILED')
    const fields = (missing.details as { field: string }[]).map((d) => d.field)
    expect(fields).toContain('nodes[s1].template_id')
    expect(fields).toContain('nodes[s1].next')
    const foreign = await failure(
      invoke(putJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node: { id: 's1', type: 'send', template_id: foreignTemplate.id, next: 'x' },
      }),
    )
    expect((foreign.details as { field: string }[]).map((d) => d.field)).toEqual(['nodes[s1].template_id'])
    const dup = await failure(
      invoke(putJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node: { id: 'x', type: 'exit' },
        must_be_new: true,
      }),
    )
    expect(dup.details).toEqual([{ field: 'nodes[x].id', message: 'is used by another node' }])
    expect(((await invoke(getJourneyVerb, acmeCtx, { id: j.id })) as J).updated_at).toBe(j.updated_at)
  })

  test('a member left out is "is required", not "undefined is not one of"', async () => {
    const j = await draft()
    const noType = await failure(invoke(putJourneyNodeVerb, acmeCtx, { id: j.id, node: { id: 'y' } }))
    expect(noType.details).toEqual([
      {
        field: 'nodes[y].type',
        message:
          'is required: one of trigger, send, wait, wait_for_event, condition, split, update_contact, add_to_list, remove_from_list, webhook, goal, exit',
      },
    ])
    const noEvent = await failure(
      invoke(putJourneyNodeVerb, acmeCtx, {
        id: j.id,
        node: { id: 'w', type: 'wait_for_event', timeout: 'P1D', on_event: 'x', on_timeout: 'x' },
      }),
    )
    const event = (noEvent.details as { field: string; message: string }[]).find(
      (d) => d.field === 'nodes[w].event',
    )
    expect(event?.message).toStartWith('is required: one of ')
  })

  test('an active journey refuses node edits (409 INVALID_STATE)', async () => {
    const j = (await invoke(createJourneyVerb, acmeCtx, { name: 'Live', nodes: [trigger, exit] })) as J
    await invoke(activateJourneyVerb, acmeCtx, { id: j.id })
    const e = await failure(invoke(putJourneyNodeVerb, acmeCtx, { id: j.id, node: { ...exit, label: 'x' } }))
    expect(e.code).toBe('INVALID_STATE')
    await invoke(pauseJourneyVerb, acmeCtx, { id: j.id })
    await invoke(putJourneyNodeVerb, acmeCtx, { id: j.id, node: { ...exit, label: 'paused edit' } })
  })
})

describe('journeys.nodes.delete', () => {
  test('removes one node; a node others point at is refused naming the pointing member', async () => {
    const j = await draft([trigger, exit, { id: 'x2', type: 'exit' }])
    const after = (await invoke(deleteJourneyNodeVerb, acmeCtx, {
      id: j.id,
      node_id: 'x2',
      expected_updated_at: j.updated_at,
    })) as J
    expect(after.nodes).toEqual([trigger, exit])
    const e = await failure(invoke(deleteJourneyNodeVerb, acmeCtx, { id: j.id, node_id: 'x' }))
    expect(e.code).toBe('VALIDATION_FAILED')
    expect((e.details as { field: string }[]).map((d) => d.field)).toEqual(['nodes[trigger].next'])
    expect((await failure(invoke(deleteJourneyNodeVerb, acmeCtx, { id: j.id, node_id: 'nope' }))).code).toBe(
      'NOT_FOUND',
    )
  })
})

describe('tenancy and roles', () => {
  test('another client’s journey is 404 for both verbs; a viewer may not edit', async () => {
    const j = await draft()
    const theirs: Promise<unknown>[] = [
      invoke(putJourneyNodeVerb, globexCtx, { id: j.id, node: { ...exit, label: 'theirs' } }),
      invoke(deleteJourneyNodeVerb, globexCtx, { id: j.id, node_id: 'x' }),
    ]
    for (const p of theirs) expect((await failure(p)).code).toBe('NOT_FOUND')
    expect((await failure(invoke(putJourneyNodeVerb, viewerCtx, { id: j.id, node: exit }))).code).toBe(
      'FORBIDDEN',
    )
    expect(((await invoke(getJourneyVerb, acmeCtx, { id: j.id })) as J).nodes).toEqual([trigger, exit])
  })
})
