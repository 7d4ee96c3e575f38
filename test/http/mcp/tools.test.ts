import { describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import Ajv2020 from 'ajv/dist/2020'
import { EXCLUDED, FILE_TOOLS } from '../../../src/http/mcp/excluded'
import { toolName } from '../../../src/http/mcp/names'
import { buildCatalog } from '../../../src/http/mcp/tools'
import { route } from '../../../src/http/rest/define-operation'
import { operations } from '../../../src/http/rest/registry'
import { oauthActor } from '../../../src/services/actors/actor'
import { defineVerb } from '../../../src/services/verbs/define'

// The generated tools: every REST operation is a tool or excluded on purpose, with a reason.
// Operations other issues add to the registry become tools without an entry anywhere here.

const catalog = buildCatalog(operations)
const toolOf = new Map(catalog.all.map((d) => [d.operation.id, d]))

describe('tools generated from the operation registry', () => {
  test('every operation is a tool or on the excluded list (add it to EXCLUDED with a reason, or to FILE_TOOLS)', () => {
    const missing = operations
      .filter((o) => !toolOf.has(o.id) && !(o.id in EXCLUDED))
      .map((o) => `${o.id} (${o.method} ${o.path})`)
    expect(missing).toEqual([])
  })

  test('the excluded list names only operations that exist, each with a reason, none of them a tool', () => {
    const ids = new Set(operations.map((o) => o.id))
    for (const [id, reason] of Object.entries(EXCLUDED)) {
      expect(ids.has(id), id).toBe(true)
      expect(toolOf.has(id), id).toBe(false)
      expect(reason.length).toBeGreaterThan(20)
    }
    for (const id of Object.keys(FILE_TOOLS)) expect(toolOf.has(id), id).toBe(true)
  })

  test('names are the operation ids in snake_case, unique', () => {
    expect(toolName('listContacts')).toBe('list_contacts')
    expect(toolName('launchCampaign')).toBe('launch_campaign')
    expect(toolName('getCampaignStats')).toBe('get_campaign_stats')
    for (const d of catalog.all) {
      expect(d.name).toMatch(/^[a-z][a-z0-9_]*$/)
      expect(d.name).toBe(FILE_TOOLS[d.operation.id]?.name ?? toolName(d.operation.id))
    }
    expect(new Set(catalog.all.map((d) => d.name)).size).toBe(catalog.all.length)
    expect(toolOf.get('createContactImport')!.name).toBe('import_contacts_csv')
  })

  test('each input schema compiles and holds the path ids, query and body members', () => {
    const ajv = new Ajv2020({ strict: false })
    for (const d of catalog.all) {
      const schema = d.tool.inputSchema as { type: string; properties: Record<string, unknown> }
      expect(() => ajv.compile(schema), d.name).not.toThrow()
      expect(schema.type).toBe('object')
      const o = d.operation
      const expected = [...d.pathNames, ...o.queryMembers, ...o.bodyMembers]
      if (d.file) expected.push(d.file.member)
      if (o.method !== 'GET') expected.push('idempotency_key')
      expect(Object.keys(schema.properties).sort(), d.name).toEqual(expected.sort())
      // Inlined: a model gets no $ref to chase.
      expect(JSON.stringify(schema), d.name).not.toContain('$ref')
    }
  })

  test('annotations: reads are readOnly; launch, cancel and deletes are destructive', () => {
    for (const d of catalog.all) {
      const a = d.tool.annotations as Record<string, boolean>
      expect(a.readOnlyHint, d.name).toBe(!d.operation.verb.mutates)
      if (d.operation.method === 'DELETE' || ['launchCampaign', 'cancelCampaign'].includes(d.operation.id))
        expect(a.destructiveHint, d.name).toBe(true)
      if (a.readOnlyHint) expect(a.destructiveHint, d.name).toBe(false)
    }
  })

  test('descriptions say what it does, what it needs and whether it changes anything', () => {
    for (const d of catalog.all) {
      const text = d.tool.description as string
      const what = d.file?.summary ?? d.operation.summary.replace(/\.$/, '')
      expect(text.startsWith(what), d.name).toBe(true)
      expect(text, d.name).toMatch(/Needs (any valid key|scope [a-z]+:[a-z*]+)\./)
      expect(text, d.name).toMatch(/Read-only|Changes data|Destructive/)
    }
    expect(toolOf.get('launchCampaign')!.tool.description).toContain('explicitly approved')
  })

  test('a new operation in the registry becomes a tool with nothing else to declare', () => {
    const verb = defineVerb({
      name: 'widgets.archive',
      scope: 'journeys:write',
      input: t.Object({ id: t.String(), reason: t.Optional(t.String()) }, { additionalProperties: false }),
      mutates: true,
      run: () => ({}),
    })
    const o = route(verb, {
      id: 'archiveWidget',
      method: 'POST',
      path: '/api/v1/widgets/{id}/archive',
      tag: 'Widgets',
      summary: 'Archive a widget',
      response: t.Object({}),
    })
    const grown = buildCatalog([...operations, o])
    const tool = grown.byName.get('archive_widget')!
    expect(tool.tool.inputSchema).toMatchObject({
      required: ['id'],
      properties: { reason: { type: 'string' } },
    })
    expect(tool.tool.description).toContain('Needs scope journeys:write')
  })
})

test('docs/api.md lists every excluded operation (section "MCP tool server")', async () => {
  const doc = await Bun.file(new URL('../../../docs/api.md', import.meta.url)).text()
  const start = doc.indexOf('\n## MCP tool server')
  expect(start).toBeGreaterThan(0)
  const end = doc.indexOf('\n## ', start + 1)
  const section = doc.slice(start, end < 0 ? undefined : end)
  for (const id of [...Object.keys(EXCLUDED), ...Object.keys(FILE_TOOLS)])
    expect(section, id).toContain(`\`${id}\``)
})

describe('tools/list for an OAuth token shows what the token may call', () => {
  const names = (scopes: string[]) =>
    new Set(
      catalog
        .visibleTo(oauthActor({ subject: 'u', tenant: null, scopes }))
        .map((t) => (t as { name: string }).name),
    )

  test.each([
    // [token scopes, tool, shown?] — the spec's default scope campaigns:read reaches every
    // operation any key may call; the entity's own read scope reaches its own ones.
    [['campaigns:read'], 'list_contacts', true],
    [['campaigns:read'], 'list_journeys', true],
    [['contacts:read'], 'list_contacts', true],
    [['contacts:read'], 'list_journeys', false],
    [['contacts:read'], 'list_campaigns', false],
    [['contacts:write'], 'create_contact', true],
    [['contacts:read'], 'create_contact', false],
  ] as const)('%p sees %s: %p', (scopes, tool, shown) => {
    expect(names([...scopes]).has(tool)).toBe(shown)
  })
})
