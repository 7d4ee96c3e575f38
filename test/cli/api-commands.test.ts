import { expect, test } from 'bun:test'
import { parseInvocation } from '../../src/cli/api/args'
import { buildApiCatalog, CLI_EXCLUDED, GLOBAL_FLAGS } from '../../src/cli/api/commands'
import { toolName } from '../../src/http/mcp/names'
import { operations } from '../../src/http/rest/registry'

// `herald api` commands are generated from the operation registry: a new operation is a new
// command, or it is listed in CLI_EXCLUDED with its reason. Checked offline, against the same
// registry that routes REST.

const catalog = buildApiCatalog(operations)
const noStdin = { text: async () => '', bytes: async () => new Uint8Array() }

test('every operation of the registry is a command named like its MCP tool, or excluded with a reason', () => {
  const missing = operations
    .filter((o) => !(o.id in CLI_EXCLUDED) && catalog.find(toolName(o.id))?.operation !== o)
    .map((o) => o.id)
  expect(missing).toEqual([])
  for (const [id, reason] of Object.entries(CLI_EXCLUDED)) {
    expect(operations.some((o) => o.id === id)).toBe(true)
    expect(reason.length).toBeGreaterThan(10)
  }
  expect(catalog.all.length).toBe(operations.length - Object.keys(CLI_EXCLUDED).length)
  // The operation id and the kebab-case spelling find the same command.
  expect(catalog.find('listContacts')?.name).toBe('list_contacts')
  expect(catalog.find('list-contacts')?.name).toBe('list_contacts')
})

test("every path id, query member and body member of an operation is one of its command's flags", () => {
  for (const c of catalog.all) {
    const o = c.operation
    const pathNames = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    for (const name of pathNames)
      expect({ op: o.id, name, where: c.members.get(name)?.where }).toEqual({
        op: o.id,
        name,
        where: 'path',
      })
    for (const name of o.queryMembers)
      expect({ op: o.id, name, where: c.members.get(name)?.where }).toEqual({
        op: o.id,
        name,
        where: 'query',
      })
    // A body member named like a flag of every command (a webhook's `url`) goes in --body.
    for (const name of o.bodyMembers.filter((n) => !(n in GLOBAL_FLAGS)))
      expect({ op: o.id, name, where: c.members.get(name)?.where }).toEqual({ op: o.id, name, where: 'body' })
  }
})

test('every command parses with its path ids given, and names the first one it lacks', async () => {
  for (const c of catalog.all) {
    const ids = c.pathNames.flatMap((n) => [`--${n}`, 'x1'])
    const body = c.operation.stream ? ['--body', '@/dev/null'] : []
    // Required query members (an analytics metric) are given a value of their own schema's kind.
    const query = [...c.members.values()]
      .filter((m) => m.where === 'query' && m.required)
      .flatMap((m) => [`--${m.name}`, Array.isArray(m.schema.enum) ? String(m.schema.enum[0]) : 'x'])
    const inv = await parseInvocation(c, [...ids, ...body, ...query], noStdin)
    expect(inv.path).not.toContain('{')
    if (c.pathNames.length > 0)
      await expect(parseInvocation(c, [...body, ...query], noStdin)).rejects.toThrow(
        `${c.name} needs --${c.pathNames[0]}`,
      )
  }
})
