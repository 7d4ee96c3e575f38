import type { Json } from '../../http/openapi/schemas'
import { operations } from '../../http/rest/registry'
import { UsageError } from '../usage'
import { parseInvocation } from './args'
import { apiKey, baseUrl, ConnectionError, type Io, runInvocation } from './client'
import { type ApiCommand, buildApiCatalog, GLOBAL_FLAGS } from './commands'

// `herald api …`: the REST API from the shell, one command per operation of the registry.
// Loaded only for `herald api` (src/cli/index.ts imports it on demand): the registry pulls in
// every service's schemas.

export const API_USAGE = `Usage:
  herald api list [--json]                      every operation: its command name, method, path and summary
  herald api NAME --help                        one command's flags
  herald api NAME [--MEMBER value …] [--body JSON | --body @file | --body -]
                  [--client ID] [--idempotency-key K] [--all] [--jsonl] [--json] [--url URL] [--key-file FILE]

The server is --url, else HERALD_URL, else http://127.0.0.1:<HERALD_PORT or 8080>; the key is
HERALD_API_KEY (or --key-file FILE). Exit 0 on success, 1 when the API answers an error (printed
as "herald: CODE: message"), 2 for a usage error, 3 when the server cannot be reached.
Examples:
  herald api list_contacts --limit 10
  herald api create_contact --body '{"email":"a@b.co"}'
  herald api get_campaign --id cmp_…
  herald api list_contacts --all --jsonl
`

function processIo(): Io {
  // A write to a pipe may still be queued when main.ts exits the process: flush waits for the
  // last write's callback (writes complete in order), or a long --all would be cut short.
  let written: Promise<unknown> = Promise.resolve()
  const write = (stream: NodeJS.WriteStream, s: string) => {
    written = new Promise((resolve) => stream.write(s, resolve))
  }
  return {
    out: (s) => write(process.stdout, s),
    err: (s) => write(process.stderr, s),
    flush: async () => void (await written),
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    sleep: (ms) => Bun.sleep(ms),
    stdin: {
      text: () => Bun.stdin.text(),
      bytes: async () => new Uint8Array(await Bun.stdin.arrayBuffer()),
    },
  }
}

/** `string`, `integer 1–200`, `one of a, b`, `object`… for a member's line in --help. */
function typeOf(s: Json): string {
  if (Array.isArray(s.enum)) return `one of ${(s.enum as unknown[]).join(', ')}`
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).map(typeOf).join(' or ')
  if (s.const !== undefined) return JSON.stringify(s.const)
  const range = s.minimum !== undefined && s.maximum !== undefined ? ` ${s.minimum}–${s.maximum}` : ''
  return `${(s.type as string | undefined) ?? 'any'}${range}`
}

function commandHelp(c: ApiCommand): string {
  const o = c.operation
  const lines = [`herald api ${c.name}: ${o.summary}`, `  ${o.method} ${o.path}`]
  lines.push(
    `  ${o.auth === 'none' ? 'no key needed' : o.auth === 'any' ? 'any valid key' : `scope ${o.auth}`}`,
  )
  const groups: [string, string][] = [
    ['path', 'Path'],
    ['query', 'Query'],
    ['body', 'Body members (in --body JSON, or each as a flag)'],
  ]
  for (const [where, title] of groups) {
    const ms = [...c.members.values()].filter((m) => m.where === where)
    if (ms.length === 0) continue
    lines.push('', `${title}:`)
    for (const m of ms) {
      const desc = typeof m.schema.description === 'string' ? ` — ${m.schema.description}` : ''
      lines.push(`  --${m.name}  ${typeOf(m.schema)}${m.required ? ', required' : ''}${desc}`)
    }
  }
  if (o.stream)
    lines.push('', `Body: the file itself, --body @FILE or --body - (sent as ${o.stream.contentTypes[0]})`)
  const skipped = Object.keys(GLOBAL_FLAGS).filter((g) => o.bodyMembers.includes(g))
  if (skipped.length)
    lines.push(
      `  (${skipped.join(', ')}: give in --body; --${skipped[0]} is refused here, the server's address is HERALD_URL)`,
    )
  lines.push('', 'Flags of every command:')
  for (const [name, f] of Object.entries(GLOBAL_FLAGS)) lines.push(`  --${name}  ${f.help}`)
  return `${lines.join('\n')}\n`
}

function list(args: readonly string[], catalog: ReturnType<typeof buildApiCatalog>, io: Io): void {
  const json = args.length === 1 && args[0] === '--json'
  if (args.length > 0 && !json) throw new UsageError('usage: herald api list [--json]')
  if (json) {
    const rows = catalog.all.map((c) => ({
      name: c.name,
      method: c.operation.method,
      path: c.operation.path,
      summary: c.operation.summary,
    }))
    io.out(`${JSON.stringify(rows)}\n`)
    return
  }
  const width = Math.max(...catalog.all.map((c) => c.name.length))
  for (const c of catalog.all)
    io.out(
      `${c.name.padEnd(width)}  ${c.operation.method.padEnd(6)} ${c.operation.path}  ${c.operation.summary}\n`,
    )
}

/** Runs `herald api ARGS`; returns the exit code (0, 1 API error, 2 usage, 3 unreachable). */
export async function apiCommand(args: readonly string[], io: Io = processIo()): Promise<number> {
  try {
    const [name, ...rest] = args
    if (!name || name === 'help' || name === '--help' || name === '-h') {
      io.out(API_USAGE)
      return 0
    }
    const catalog = buildApiCatalog(operations)
    if (name === 'list') {
      list(rest, catalog, io)
      return 0
    }
    const command = catalog.find(name)
    if (!command) {
      const near = catalog.suggest(name)
      throw new UsageError(
        `unknown operation: ${name}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; see herald api list`,
      )
    }
    const inv = await parseInvocation(command, rest, io.stdin)
    if (inv.help) {
      io.out(commandHelp(command))
      return 0
    }
    const base = baseUrl(inv.url, io.env)
    return await runInvocation(inv, base, await apiKey(inv.keyFile, io.env), io)
  } catch (err) {
    const message = (err as Error).message ?? String(err)
    io.err(`herald: ${message}\n`)
    return err instanceof UsageError ? 2 : err instanceof ConnectionError ? 3 : 1
  } finally {
    await io.flush()
  }
}
