import { afterAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { USAGE } from '../../src/cli/usage'
import { createTestApp } from '../helpers/app'
import { freePort } from '../helpers/binary'
import { cliCaptured } from '../helpers/cli'
import { serveApp } from '../helpers/mcp'

// `herald api …` run in-process (runCli, stdout and stderr captured) against a real server on a
// loopback port: the CLI talks HTTP to it exactly as it would to `herald serve`.

const t = await createTestApp()
const server = serveApp(t.app)
afterAll(() => server.stop())
const clientId = await t.client('CLI workspace')
// A port nothing listens on: a command that reaches the network there exits 3, not 2.
const closed = `http://127.0.0.1:${freePort()}`

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs `herald api ARGS` with HERALD_URL and HERALD_API_KEY set (an undefined value unsets one). */
async function api(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const vars = { HERALD_URL: server.base, HERALD_API_KEY: t.adminKey, ...env }
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  for (const [k, v] of Object.entries(vars))
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  try {
    return await cliCaptured(['api', ...args])
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
}

const json = (r: Run) => {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

describe('herald api: operations from the registry', () => {
  test('list names every operation with its method, path and summary; --json too; offline', async () => {
    const r = await api(['list'], { HERALD_URL: closed })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^list_contacts +GET +\/api\/v1\/contacts +List contacts/m)
    expect(r.stdout).toMatch(/^create_campaign +POST +\/api\/v1\/campaigns /m)
    const rows = json(await api(['list', '--json'], { HERALD_URL: closed }))
    expect(rows.find((x: { name: string }) => x.name === 'get_campaign')).toEqual({
      name: 'get_campaign',
      method: 'GET',
      path: '/api/v1/campaigns/{id}',
      summary: expect.any(String),
    })
    expect(r.stdout.trim().split('\n').length).toBe(rows.length)
    // `herald api` alone says how to use it; `herald help` names it.
    const bare = await api([], { HERALD_URL: closed })
    expect(bare.code).toBe(0)
    expect(bare.stdout).toContain('herald api NAME --help')
    expect(USAGE).toContain('herald api list')
  })

  test('a command says its own flags with --help (path, query, body members)', async () => {
    const r = await api(['list_contacts', '--help'], { HERALD_URL: closed })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('GET /api/v1/contacts')
    expect(r.stdout).toMatch(/--limit +integer 1–200/)
    expect(r.stdout).toContain('--client_id')
    const c = await api(['create_contact', '--help'], { HERALD_URL: closed })
    expect(c.stdout).toMatch(/--email +string, required/)
  })
})

describe('herald api: requests over HTTP', () => {
  const emails = [
    'ana@example.com',
    'ben@example.com',
    'cai@example.com',
    'dee@example.com',
    'eli@example.com',
  ]
  const ids: string[] = []

  test('create (--body JSON, --body @file, member flags) and get (--id or bare id)', async () => {
    for (const [i, email] of emails.entries()) {
      const args =
        i === 0
          ? ['--body', JSON.stringify({ email, first_name: 'Ana' })]
          : i === 1
            ? ['--body', `@${writeBody(email)}`]
            : ['--email', email, '--custom_fields', '{"plan":"pro"}']
      const made = json(await api(['create_contact', '--client', clientId, ...args]))
      expect(made.data).toMatchObject({ email, client_id: clientId })
      ids.push(made.data.id)
    }
    const got = json(await api(['get_contact', '--id', ids[0]!]))
    expect(got.data).toMatchObject({ id: ids[0], email: emails[0], first_name: 'Ana' })
    // A member flag that is not a string is JSON: the object arrived as one.
    expect(json(await api(['get_contact', ids[2]!])).data.custom_fields).toEqual({ plan: 'pro' })
    // A string member stays text even when it reads as a number; `null` clears a nullable one.
    const named = json(await api(['update_contact', ids[0]!, '--company', '1234', '--first_name', 'null']))
    expect(named.data).toMatchObject({ company: '1234', first_name: null })
  })

  test('--all follows next_cursor over several pages: one JSON array, or JSON lines', async () => {
    const one = json(await api(['list_contacts', '--client', clientId, '--limit', '2']))
    expect(one.data).toHaveLength(2)
    expect(one.pagination.next_cursor).toBeString()
    const all = json(await api(['list_contacts', '--client', clientId, '--limit', '2', '--all']))
    expect(all.map((c: { email: string }) => c.email).sort()).toEqual(emails)
    const lines = await api(['list_contacts', '--client', clientId, '--limit', '2', '--all', '--jsonl'])
    expect(lines.code).toBe(0)
    const rows = lines.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows.map((c: { id: string }) => c.id).sort()).toEqual([...ids].sort())
    // A cursor in the body (search) is followed too.
    const found = json(
      await api([
        'search_contacts',
        '--body',
        `{"query":"example"}`,
        '--client_id',
        clientId,
        '--limit',
        '2',
        '--all',
      ]),
    )
    expect(found.map((c: { email: string }) => c.email).sort()).toEqual(emails)
  })

  test('a download is printed as it came (CSV), and a file body is sent as the file', async () => {
    const csv = await api(['export_contacts', '--client', clientId])
    expect(csv.code).toBe(0)
    expect(csv.stdout.split('\n')[0]).toContain('email')
    for (const e of emails) expect(csv.stdout).toContain(e)
    const file = join(t.dataDir, 'import.csv')
    writeFileSync(file, 'email,first_name\nfay@example.com,Fay\n')
    const started = json(await api(['create_contact_import', '--client', clientId, '--body', `@${file}`]))
    expect(started.data.id).toBeString()
  })

  test('a 422 exits 1 with "herald: VALIDATION_FAILED: …" and each failing field on stderr', async () => {
    const r = await api(['create_contact', '--client', clientId, '--body', '{"email":"not an email"}'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    // One failing field is the message itself; its detail line would say it again.
    expect(r.stderr).toMatch(/^herald: VALIDATION_FAILED: email: /)
    expect(r.stderr).not.toMatch(/^ {2}email: /m)
    expect(r.stderr).toMatch(/^ {2}request_id: /m)
    const two = await api([
      'create_contact',
      '--client',
      clientId,
      '--body',
      '{"email":"not an email","tags":5}',
    ])
    expect(two.stderr).toMatch(/^herald: VALIDATION_FAILED: 2 fields are invalid/)
    expect(two.stderr).toMatch(/^ {2}email: /m)
    expect(two.stderr).toMatch(/^ {2}tags: /m)
  })

  test('a create without a workspace (platform-wide key) names the --client flag', async () => {
    const r = await api(['create_contact', '--email', 'nowhere@example.com'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^herald: VALIDATION_FAILED: client_id: /)
    expect(r.stderr).toContain('give the workspace with --client ID')
  })

  test('a 404 exits 1 with NOT_FOUND', async () => {
    const r = await api(['get_contact', '--id', '01900000-0000-7000-8000-000000000000'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^herald: NOT_FOUND: /)
  })

  test('no key: the 401 is printed with how to give one; --key-file gives one', async () => {
    const r = await api(['list_contacts'], { HERALD_API_KEY: undefined })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^herald: UNAUTHORIZED: /)
    expect(r.stderr).toContain('set HERALD_API_KEY (or pass --key-file FILE)')
    const keyFile = join(t.dataDir, 'key')
    writeFileSync(keyFile, `${t.adminKey}\n`)
    const ok = await api(['list_contacts', '--key-file', keyFile, '--client', clientId], {
      HERALD_API_KEY: undefined,
    })
    expect(json(ok).data.length).toBeGreaterThan(0)
    const missing = await api(['list_contacts', '--key-file', join(t.dataDir, 'nope')])
    expect(missing.code).toBe(2)
  })

  test('the same idempotency key twice acts once and answers the same', async () => {
    const args = [
      'create_contact',
      '--client',
      clientId,
      '--email',
      'once@example.com',
      '--idempotency-key',
      'k-1',
    ]
    const first = await api(args)
    const second = await api(args)
    expect(json(first).data.email).toBe('once@example.com')
    expect(second.stdout).toBe(first.stdout)
    // Without the key, the same create is a new request: the address is taken now.
    const third = await api(args.slice(0, -2))
    expect(third.code).toBe(1)
    expect(third.stderr).toMatch(/^herald: CONFLICT: /)
    expect(third.stderr).toMatch(/^ {2}existing_id: "/m)
  })
})

describe('herald api: usage errors exit 2 before any request', () => {
  // HERALD_URL points where nothing listens: had a request been made, the exit would be 3.
  const offline = async (args: string[]) => await api(args, { HERALD_URL: closed })

  test('an unknown operation suggests the nearest names', async () => {
    const r = await offline(['list_contact'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('herald: unknown operation: list_contact (did you mean list_contacts')
  })

  test('a missing path id names the flag', async () => {
    const r = await offline(['get_campaign'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('herald: get_campaign needs --id (the record id)\n')
    const two = await offline(['retry_webhook_delivery', '--id', 'whk_x'])
    expect(two.stderr).toContain('needs --delivery_id')
  })

  test('an unknown flag, a bad query value, bad JSON, a body where none is taken', async () => {
    const cases: [string[], string][] = [
      [['list_contacts', '--limt', '3'], 'list_contacts does not take --limt'],
      [['list_contacts', '--limit', 'many'], '--limit: must be an integer'],
      [['list_contacts', '--limit', '500'], '--limit: '],
      [['list_contacts', '--limit'], '--limit needs a value'],
      [['create_contact', '--body', '{email'], '--body is not valid JSON'],
      [['create_contact', '--body', '[]'], '--body must be a JSON object'],
      [['create_contact', '--body', '@/nonexistent.json'], '--body: cannot read /nonexistent.json (ENOENT)'],
      [['create_contact', '--email', 'a@b.co', '--body', '{"email":"c@d.co"}'], 'email is given both'],
      [['get_contact', '--id', 'x', '--body', '{}'], 'get_contact takes no body'],
      [['get_contact', '--id', 'x', '--idempotency-key', 'k'], '--idempotency-key is for changes'],
      [['get_contact', '--id', 'x', '--all'], 'get_contact is not a list'],
      [['create_contact_import', '--client', 'c'], 'needs --body @FILE'],
      [['get_health', '--client', 'c'], 'get_health does not take --client'],
      [['get_contact', 'a', 'b'], 'unexpected argument: a b'],
      [['list_contacts', '--url', 'ftp://x'], '--url must be an http:// or https:// URL'],
      // The webhook's own url is not taken for the server's address (the key would go to it).
      [['create_webhook', '--url', 'https://hook.example'], 'create_webhook has a member named url'],
      // A member that is not text is JSON: a bare word is refused here, saying how to write it.
      [
        ['register_agent', '--client_name', 'a', '--identity_type', 'anonymous', '--scopes', 'contacts:read'],
        `--scopes takes JSON (array), e.g. --scopes '["…"]'`,
      ],
      [['update_contact', '--id', 'x', '--custom_fields', 'plan=pro'], `--custom_fields takes JSON (object)`],
    ]
    for (const [args, message] of cases) {
      const r = await offline(args)
      expect({ args, code: r.code }).toEqual({ args, code: 2 })
      expect(r.stderr).toContain(message)
    }
  })
})

test('connection refused exits 3 naming the URL and how to point elsewhere', async () => {
  const r = await api(['list_contacts'], { HERALD_URL: closed })
  expect(r.code).toBe(3)
  expect(r.stderr).toContain(`cannot reach Herald at ${closed}`)
  expect(r.stderr).toContain('Is the server running (herald serve)?')
  // Without HERALD_URL the default is the loopback address on HERALD_PORT.
  const port = closed.split(':').at(-1)!
  const d = await api(['list_contacts'], { HERALD_URL: undefined, HERALD_PORT: port })
  expect(d.code).toBe(3)
  expect(d.stderr).toContain(`cannot reach Herald at http://127.0.0.1:${port} `)
})

function writeBody(email: string): string {
  const file = join(t.dataDir, `${email}.json`)
  writeFileSync(file, JSON.stringify({ email }))
  return file
}

describe('herald api: output', () => {
  const io = (isTTY: boolean, base: string) => {
    const out: string[] = []
    const err: string[] = []
    return {
      out,
      err,
      io: {
        out: (s: string) => void out.push(s),
        err: (s: string) => void err.push(s),
        flush: async () => {},
        isTTY,
        env: { HERALD_URL: base, HERALD_API_KEY: t.adminKey },
        stdin: { text: async () => '', bytes: async () => new Uint8Array() },
        sleep: (ms: number) => Bun.sleep(ms),
      },
    }
  }

  test('indented JSON on a terminal, compact with --json or into a pipe', async () => {
    const { apiCommand } = await import('../../src/cli/api')
    const tty = io(true, server.base)
    expect(await apiCommand(['get_client', clientId], tty.io)).toBe(0)
    expect(tty.out.join('')).toStartWith('{\n  "data": {\n    "id": ')
    const compact = io(true, server.base)
    expect(await apiCommand(['get_client', clientId, '--json'], compact.io)).toBe(0)
    expect(compact.out.join('')).toStartWith('{"data":{"id":')
    expect(compact.out.join('').trim().split('\n')).toHaveLength(1)
  })

  test('an answer that is not the API error body (a proxy in front) is printed with its status', async () => {
    const proxy = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => new Response('upstream down', { status: 502 }),
    })
    try {
      const { apiCommand } = await import('../../src/cli/api')
      const r = io(false, `http://127.0.0.1:${proxy.port}`)
      expect(await apiCommand(['list_contacts'], r.io)).toBe(1)
      expect(r.err.join('')).toBe('herald: HTTP 502: upstream down\n')
    } finally {
      proxy.stop(true)
    }
  })
})
