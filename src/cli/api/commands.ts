import { toolName } from '../../http/mcp/names'
import { toolInput } from '../../http/mcp/schema'
import type { Json } from '../../http/openapi/schemas'
import type { Operation } from '../../http/rest/define-operation'

// `herald api <name>` commands are generated from the operation registry, like the MCP tools:
// the same snake_case names (toolName) and the same member list and JSON Schemas (toolInput),
// so a new operation is a new command without an entry here. Unlike a tool, a command can send
// a file body as it is (`--body @file.csv`) and print a download, so every operation is one.

/**
 * Operations that are not commands, with the reason. Empty on purpose: the test of generated
 * commands fails when an operation is neither a command nor listed here.
 */
export const CLI_EXCLUDED: Readonly<Record<string, string>> = {}

/** Flags every command takes; an operation member with one of these names goes in --body. */
export const GLOBAL_FLAGS = {
  url: { value: true, help: 'base URL of the server (else HERALD_URL, else http://127.0.0.1:<port>)' },
  'key-file': { value: true, help: 'read the API key from this file (else HERALD_API_KEY)' },
  body: { value: true, help: "JSON body: '{…}', @file (a file) or - (stdin)" },
  client: { value: true, help: 'shorthand for --client_id (the workspace a platform-wide key acts in)' },
  'idempotency-key': { value: true, help: 'Idempotency-Key header: a retry with the same key acts once' },
  all: { value: false, help: 'follow pagination.next_cursor and print every item as one JSON array' },
  jsonl: { value: false, help: 'print the items of a list one JSON object per line' },
  json: { value: false, help: 'compact JSON even on a terminal' },
  help: { value: false, help: "this command's flags" },
} as const

export type GlobalFlag = keyof typeof GLOBAL_FLAGS

export interface MemberFlag {
  /** The member's name, which is also the flag (`--client_id`; `--client-id` works too). */
  name: string
  where: 'path' | 'query' | 'body'
  required: boolean
  /** The member's plain JSON Schema (toolInput's), for --help and turning text into a value. */
  schema: Json
}

export interface ApiCommand {
  name: string
  operation: Operation
  members: ReadonlyMap<string, MemberFlag>
  pathNames: readonly string[]
  /** A list answer with a cursor: --all and --jsonl apply. */
  paginated: 'query' | 'body' | null
}

function define(o: Operation): ApiCommand {
  const input = toolInput(o)
  const properties = input.schema.properties as Record<string, Json>
  const required = new Set(input.schema.required as string[])
  const members = new Map<string, MemberFlag>()
  for (const [name, schema] of Object.entries(properties)) {
    // The Idempotency-Key header has its own flag; a member named like a global flag (a
    // webhook's `url`) is given in --body.
    if (name === 'idempotency_key' || name in GLOBAL_FLAGS) continue
    const where = input.pathNames.includes(name) ? 'path' : o.queryMembers.includes(name) ? 'query' : 'body'
    members.set(name, { name, where, required: required.has(name), schema })
  }
  const cursorIn = o.queryMembers.includes('cursor')
    ? 'query'
    : o.bodyMembers.includes('cursor')
      ? 'body'
      : null
  return {
    name: toolName(o.id),
    operation: o,
    members,
    pathNames: input.pathNames,
    paginated: o.answer === 'as-is' && cursorIn ? cursorIn : null,
  }
}

export interface ApiCatalog {
  all: readonly ApiCommand[]
  /** A command by its name, or by its operation id (`listContacts`) or kebab-case name. */
  find(name: string): ApiCommand | null
  /** The closest names to a mistyped one, best first. */
  suggest(name: string): string[]
}

export function buildApiCatalog(operations: readonly Operation[]): ApiCatalog {
  const all = operations.filter((o) => !(o.id in CLI_EXCLUDED)).map(define)
  const byName = new Map(all.map((c) => [c.name, c]))
  if (byName.size !== all.length) throw new Error('herald api: two operations map to the same command name')
  for (const c of all) byName.set(c.operation.id, c)
  return {
    all,
    find: (name) => byName.get(name) ?? byName.get(name.replaceAll('-', '_')) ?? null,
    suggest(name) {
      const wanted = name.replaceAll('-', '_').toLowerCase()
      const scored = all
        .map((c) => ({ name: c.name, d: distance(wanted, c.name) }))
        .filter((s) => s.d <= Math.max(2, Math.floor(s.name.length / 3)))
        .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
      return scored.slice(0, 3).map((s) => s.name)
    },
  }
}

/** Levenshtein distance (names are short; the quadratic table is nothing). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]!
}
