import { expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { cliOnApp } from '../helpers/cli'

// A verb's refusal at the console (keys, users, analytics run the verbs as the console actor) is
// one line. A refusal of one field printed its field error twice — "client_id: must be … (client_id
// must be …)" — as the message and again as the detail; now the detail is printed only when it
// adds something (a refusal of several fields names each). analytics rebuild printed the message
// alone, so "2 fields are invalid; see details" would have had no details to see.

const t = await createTestApp()
const cli = async (...args: string[]) => await cliOnApp(t, args)

test.each([
  [
    ['keys', 'create', '--name', 'k', '--scopes', 'contacts:read', '--client', 'nope'],
    'client_id: must be a client id (cli_… or a UUID)',
  ],
  [
    ['keys', 'create', '--name', 'k', '--scopes', 'contacts:read', '--expires', 'yesterday'],
    'expires_at: must be a valid date-time',
  ],
  [
    ['users', 'create', '--email', 'ok@example.com', '--password', 'x'],
    'password: must be at least 10 characters',
  ],
  [
    ['users', 'create', '--email', 'bad', '--password', 'x'],
    '2 fields are invalid: email: must be a valid email address; password: must be at least 10 characters',
  ],
  [
    ['users', 'create', '--email', 'm@example.com', '--role', 'member', '--clients', 'nope'],
    'clients[0]: must be a client id (cli_… or a UUID)',
  ],
  [['analytics', 'rebuild', '--client', 'nope'], 'client_id: no such client'],
])('herald %j → exit 1, one line: %s', async (args, line) => {
  expect(await cli(...args)).toEqual({ code: 1, stdout: '', stderr: `herald: ${line}\n` })
})
