import { readFile } from 'node:fs/promises'
import type { TSchema } from '@sinclair/typebox'
import type { Json } from '../../http/openapi/schemas'
import { coerceQuery, validate } from '../../lib/validate'
import { UsageError } from '../usage'
import { type ApiCommand, GLOBAL_FLAGS, type GlobalFlag, type MemberFlag } from './commands'

// One command's arguments → the request it makes. Everything that can be checked without the
// server is checked here and is a usage error (exit 2) naming the flag: an unknown flag, a
// missing path id, a query value the operation's TypeBox schema refuses, a --body that is not
// JSON. The body's members are left to the server, whose 422 names every failing one.

export type RequestBody =
  | { kind: 'json'; value: Record<string, unknown> }
  | { kind: 'raw'; bytes: Uint8Array; contentType: string }

export interface Invocation {
  command: ApiCommand
  /** The operation's path with the path ids filled in (encoded). */
  path: string
  query: URLSearchParams
  body: RequestBody | null
  idempotencyKey: string | null
  url: string | null
  keyFile: string | null
  all: boolean
  jsonl: boolean
  json: boolean
  help: boolean
}

export interface Stdin {
  text(): Promise<string>
  bytes(): Promise<Uint8Array>
}

const usageHint = (c: ApiCommand) => `(see herald api ${c.name} --help)`

interface Parsed {
  globals: Partial<Record<GlobalFlag, string | true>>
  members: Map<string, string>
  positional: string[]
}

/** `--name value`, `--name=value`; a boolean flag takes no value; nothing is given twice. */
function tokenize(c: ApiCommand, args: readonly string[]): Parsed {
  const out: Parsed = { globals: {}, members: new Map(), positional: [] }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '-h') {
      out.globals.help = true
      continue
    }
    if (!arg.startsWith('--') || arg === '--') {
      out.positional.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const flag = arg.slice(2, eq === -1 ? undefined : eq)
    const inline = eq === -1 ? undefined : arg.slice(eq + 1)
    const next = () => {
      if (inline !== undefined) return inline
      const v = args[i + 1]
      if (v === undefined || (v.startsWith('--') && v.length > 2))
        throw new UsageError(`--${flag} needs a value ${usageHint(c)}`)
      i++
      return v
    }
    if (flag in GLOBAL_FLAGS) {
      const g = flag as GlobalFlag
      if (g in out.globals) throw new UsageError(`--${flag} is given twice`)
      if (GLOBAL_FLAGS[g].value) out.globals[g] = next()
      else if (inline !== undefined) throw new UsageError(`--${flag} takes no value`)
      else out.globals[g] = true
      continue
    }
    const member = c.members.get(flag.replaceAll('-', '_'))
    if (!member) throw new UsageError(`${c.name} does not take --${flag} ${usageHint(c)}`)
    if (out.members.has(member.name)) throw new UsageError(`--${flag} is given twice`)
    // A boolean member may stand alone: `--update_existing` means true.
    const bare =
      member.schema.type === 'boolean' &&
      inline === undefined &&
      (args[i + 1] === undefined || args[i + 1]!.startsWith('--'))
    out.members.set(member.name, bare ? 'true' : next())
  }
  return out
}

const typesOf = (s: Json): unknown[] =>
  Array.isArray(s.anyOf) ? (s.anyOf as Json[]).flatMap(typesOf) : [s.type ?? (s.enum ? 'string' : 'any')]

const EXAMPLES: Record<string, string> = { array: `'["…"]'`, object: `'{…}'` }

/**
 * A body member's flag text as a value: text for a string member (`null` clears a nullable one:
 * `--first_name null`), else JSON (numbers, booleans, arrays, objects). Text that is not JSON
 * for a member that cannot be text is a usage error saying how to write it, not a 422 later.
 */
function memberValue(m: MemberFlag, text: string): unknown {
  const types = typesOf(m.schema)
  if (types.every((t) => t === 'string' || t === 'null'))
    return text === 'null' && types.includes('null') ? null : text
  try {
    return JSON.parse(text)
  } catch {
    if (types.includes('string') || types.includes('any')) return text
    const kinds = types.filter((t) => t !== 'null')
    const example = kinds.map((k) => EXAMPLES[k as string]).find(Boolean)
    throw new UsageError(
      `--${m.name} takes JSON (${kinds.join(' or ')})${example ? `, e.g. --${m.name} ${example}` : ''}`,
    )
  }
}

async function readBodyArg(
  c: ApiCommand,
  arg: string,
  stdin: Stdin,
  raw: boolean,
): Promise<string | Uint8Array> {
  if (arg === '-') return raw ? stdin.bytes() : stdin.text()
  if (arg.startsWith('@')) {
    // readFile, not Bun.file: /dev/stdin and <(…) pipes are files to read too.
    const path = arg.slice(1)
    try {
      const bytes = new Uint8Array(await readFile(path))
      return raw ? bytes : new TextDecoder().decode(bytes)
    } catch (err) {
      throw new UsageError(`--body: cannot read ${path} (${(err as { code?: string }).code ?? err})`)
    }
  }
  if (raw) throw new UsageError(`${c.name} sends a file: give --body @FILE or --body - (stdin)`)
  return arg
}

async function bodyOf(c: ApiCommand, p: Parsed, stdin: Stdin): Promise<RequestBody | null> {
  const o = c.operation
  const arg = typeof p.globals.body === 'string' ? p.globals.body : null
  if (o.stream) {
    if (arg === null) throw new UsageError(`${c.name} needs --body @FILE (or --body - for stdin)`)
    const bytes = (await readBodyArg(c, arg, stdin, true)) as Uint8Array
    return { kind: 'raw', bytes, contentType: o.stream.contentTypes[0]! }
  }
  if (o.bodyMembers.length === 0) {
    if (arg !== null) throw new UsageError(`${c.name} takes no body`)
    return null
  }
  let value: Record<string, unknown> = {}
  if (arg !== null) {
    const text = (await readBodyArg(c, arg, stdin, false)) as string
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (err) {
      throw new UsageError(`--body is not valid JSON: ${(err as Error).message}`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UsageError('--body must be a JSON object')
    value = parsed as Record<string, unknown>
  }
  for (const [name, text] of p.members) {
    const m = c.members.get(name)!
    if (m.where !== 'body') continue
    if (name in value) throw new UsageError(`${name} is given both in --body and as --${name}`)
    value[name] = memberValue(m, text)
  }
  return { kind: 'json', value }
}

export async function parseInvocation(
  c: ApiCommand,
  args: readonly string[],
  stdin: Stdin,
): Promise<Invocation> {
  const o = c.operation
  const p = tokenize(c, args)
  const g = p.globals
  const inv: Invocation = {
    command: c,
    path: o.path,
    query: new URLSearchParams(),
    body: null,
    idempotencyKey: null,
    url: typeof g.url === 'string' ? g.url : null,
    keyFile: typeof g['key-file'] === 'string' ? g['key-file'] : null,
    all: g.all === true,
    jsonl: g.jsonl === true,
    json: g.json === true,
    help: g.help === true,
  }
  if (inv.help) return inv
  // `create_webhook --url https://hook…` means the webhook's URL; taken as the server's address,
  // the API key would go to the hook. Refused: the member goes in --body, the server in HERALD_URL.
  if (inv.url !== null && o.bodyMembers.includes('url'))
    throw new UsageError(
      `${c.name} has a member named url: give it in --body '{"url":…}', and the server's address in HERALD_URL`,
    )

  // The one path id may also be given bare: `herald api get_campaign cmp_…`.
  if (p.positional.length > 0) {
    const [id] = c.pathNames
    if (p.positional.length > 1 || c.pathNames.length !== 1 || p.members.has(id!))
      throw new UsageError(`unexpected argument: ${p.positional.join(' ')} ${usageHint(c)}`)
    p.members.set(id!, p.positional[0]!)
  }
  if (typeof g.client === 'string') {
    if (!c.members.has('client_id')) throw new UsageError(`${c.name} does not take --client ${usageHint(c)}`)
    if (p.members.has('client_id')) throw new UsageError('--client and --client_id are the same flag')
    p.members.set('client_id', g.client)
  }

  for (const name of c.pathNames) {
    const value = p.members.get(name)
    if (value === undefined || value === '')
      throw new UsageError(
        `${c.name} needs --${name} (${o.rawParams?.includes(name) ? name : 'the record id'})`,
      )
    inv.path = inv.path.replace(`{${name}}`, encodeURIComponent(value))
  }

  const raw: Record<string, string> = {}
  for (const [name, value] of p.members) if (c.members.get(name)!.where === 'query') raw[name] = value
  if (o.query) {
    const failures = validate(o.query as TSchema, coerceQuery(o.query, raw), 'query')
    if (failures.length > 0)
      throw new UsageError(
        failures.map((f) => (f.field === 'query' ? f.message : `--${f.field}: ${f.message}`)).join('; ') +
          ` ${usageHint(c)}`,
      )
  }
  for (const [name, value] of Object.entries(raw)) inv.query.set(name, value)

  inv.body = await bodyOf(c, p, stdin)

  if (typeof g['idempotency-key'] === 'string') {
    if (o.method === 'GET') throw new UsageError(`${c.name} only reads: --idempotency-key is for changes`)
    inv.idempotencyKey = g['idempotency-key']
  }
  if ((inv.all || inv.jsonl) && !c.paginated)
    throw new UsageError(`${c.name} is not a list: --all and --jsonl are for list commands`)
  return inv
}
