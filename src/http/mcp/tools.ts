import { hasScope, type Scope } from '../../lib/scopes'
import type { Actor } from '../../services/actors/actor'
import { oauthReadScopes } from '../../services/verbs/invoke'
import type { Json } from '../openapi/schemas'
import type { Operation } from '../rest/define-operation'
import { describe } from './describe'
import { EXCLUDED, FILE_TOOLS } from './excluded'
import { toolName } from './names'
import { toolInput } from './schema'

// Tools are generated from the operation registry: one per operation that is not
// excluded on purpose, named after its operation id, filtered by the caller's scopes.

/** Operations that reach outside Herald (mail, DNS, a webhook receiver). */
const OPEN_WORLD = new Set([
  'launchCampaign',
  'sendMessage',
  'testWebhook',
  'verifyDomain',
  'retryWebhookDelivery',
])

export interface ToolDef {
  name: string
  operation: Operation
  /** Path members of the input (ids in the operation's path). */
  pathNames: readonly string[]
  /** For operations whose body is a file: the member carrying it as text. */
  file?: (typeof FILE_TOOLS)[string]
  /** The MCP `Tool` object, as tools/list answers it. */
  tool: Json
}

function define(o: Operation): ToolDef | null {
  if (o.id in EXCLUDED) return null
  const file = FILE_TOOLS[o.id]
  // A file body or a file answer has no JSON form; such an operation needs an entry in
  // FILE_TOOLS or EXCLUDED (the generated-tools test says which one is missing).
  if ((o.stream && !file) || o.answer === 'download' || o.auth === 'none') return null
  const extra: Record<string, Json> = file
    ? { [file.member]: { type: 'string', minLength: 1, description: file.description } }
    : {}
  const input = toolInput(o, extra)
  if (file) (input.schema.required as string[]).push(file.member)
  const readOnly = !o.verb.mutates
  const name = file?.name ?? toolName(o.id)
  return {
    name,
    operation: o,
    pathNames: input.pathNames,
    file,
    tool: {
      name,
      title: file ? 'Import contacts from CSV text' : o.summary,
      description: describe(o, file?.summary),
      inputSchema: input.schema,
      annotations: {
        readOnlyHint: readOnly,
        destructiveHint: !readOnly && o.destructive === true,
        idempotentHint: readOnly || o.method === 'DELETE' || o.method === 'PATCH',
        openWorldHint: OPEN_WORLD.has(o.id),
      },
    },
  }
}

/** A key whose every scope is a `…:read` one: its assistant is a reader. */
const readsOnly = (actor: Actor) => actor.scopes.every((s) => s.endsWith(':read'))

/**
 * Whether tools/list shows a tool to an actor: its scope is held; an operation any key may call
 * (webhooks, domain verification) is shown when it reads, or when the key may write something,
 * so a read-only key's assistant sees no write tools. Calls are not filtered: a hidden tool
 * called by name gets the REST answer (403 naming the scope it lacks).
 */
export const allows = (actor: Actor, d: ToolDef) =>
  d.operation.auth === 'any'
    ? // An OAuth token holds scopes only: it calls these with campaigns:read (the spec's default)
      // or the entity's own read scope, exactly as invoke's authorize accepts them.
      actor.kind === 'oauth'
      ? oauthReadScopes(d.operation.verb.name).some((s) => hasScope(actor.scopes, s))
      : !d.operation.verb.mutates || !readsOnly(actor)
    : hasScope(actor.scopes, d.operation.auth as Scope)

export interface ToolCatalog {
  all: readonly ToolDef[]
  byName: ReadonlyMap<string, ToolDef>
  /** The tools an actor's scopes allow, as tools/list answers them (one array per scope set). */
  visibleTo(actor: Actor): readonly Json[]
}

export function buildCatalog(operations: readonly Operation[]): ToolCatalog {
  const all = operations.map(define).filter((d): d is ToolDef => d !== null)
  const byName = new Map(all.map((d) => [d.name, d]))
  if (byName.size !== all.length) throw new Error('MCP: two operations map to the same tool name')
  const cache = new Map<string, readonly Json[]>()
  return {
    all,
    byName,
    visibleTo(actor) {
      const key = [...actor.scopes].sort().join(' ')
      let tools = cache.get(key)
      if (!tools) {
        tools = all.filter((d) => allows(actor, d)).map((d) => d.tool)
        cache.set(key, tools)
      }
      return tools
    },
  }
}
