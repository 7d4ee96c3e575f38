import { afterAll, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveBinary, useBinary } from '../helpers/binary'

// README.md's OAuth example ("OAuth 2.1 authorization server"), run as pasted with bash, curl
// and jq against the built binary on a fresh data dir; only `KEY=` and `BASE=` are filled in.

const root = join(import.meta.dir, '../..')
const bin = useBinary('herald-readme-oauth-')
const KEY = 'hrld_ReadmeOAuth0123456789abcdef'

function oauthBlock(readme: string): string {
  const section = readme.slice(readme.indexOf('## OAuth 2.1 authorization server'))
  const m = /```sh\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 5)))
  if (!m) throw new Error('README.md has no shell block in "OAuth 2.1 authorization server"')
  return m[1]!
}

let server: Awaited<ReturnType<typeof serveBinary>> | undefined
afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

test('the README OAuth example runs by copy-paste and prints what the README says', async () => {
  expect(Bun.which('jq'), 'the example needs jq').not.toBeNull()
  const block = oauthBlock(readFileSync(join(root, 'README.md'), 'utf8'))
  expect(block).toMatch(/^KEY=hrld_…/m)
  expect(block).toMatch(/^BASE=http:\/\/localhost:8080$/m)

  const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY } as Record<string, string>
  delete env.HERALD_PUBLIC_URL
  server = await serveBinary(bin, join(bin.work, 'data'), env, 'ignore')
  const script = block.replace(/^KEY=.*$/m, `KEY=${KEY}`).replace(/^BASE=.*$/m, `BASE=${server.base}`)
  writeFileSync(join(bin.work, 'oauth.sh'), script)

  const run = Bun.spawn(['bash', '-euo', 'pipefail', 'oauth.sh'], {
    cwd: bin.work,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => run.kill(), 60_000)
  const [code, out, err] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ])
  clearTimeout(timer)
  expect(code, `example failed:\n${out}\n${err}`).toBe(0)
  expect(err).toBe('')
  expect(out.trim().split('\n')).toEqual([
    '1',
    '{}',
    '401',
    '{"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}',
  ])
}, 180_000)
