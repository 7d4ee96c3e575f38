import { expect } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// The shell examples of README.md and docs/*.md, run as a reader pastes them (bash -euo pipefail,
// with curl and jq): only the two lines a reader fills in are replaced, `KEY=` (the key printed on
// first run) and `BASE=` (where the server listens).

const root = join(import.meta.dir, '../..')

/** The first ```sh block of `file`'s `## <heading>` section; it leaves KEY= and BASE= to fill in. */
export function readmeBlock(heading: string, file = 'README.md'): string {
  const readme = readFileSync(join(root, file), 'utf8')
  const section = readme.slice(readme.indexOf(`## ${heading}`))
  const end = section.indexOf('\n## ', 5)
  const block = /```sh\n([\s\S]*?)```/.exec(end < 0 ? section : section.slice(0, end))?.[1]
  if (block === undefined) throw new Error(`${file} has no shell block in "${heading}"`)
  expect(block).toMatch(/^KEY=hrld_…/m)
  expect(block).toMatch(/^BASE=http:\/\/localhost:8080$/m)
  return block
}

/** Runs `block` as `cwd`/`file` with KEY and BASE filled in (killed after a minute): how it ended. */
export async function runReadmeBlock(
  block: string,
  o: { cwd: string; file: string; key: string; base: string },
): Promise<{ code: number; out: string; err: string }> {
  const script = block.replace(/^KEY=.*$/m, `KEY=${o.key}`).replace(/^BASE=.*$/m, `BASE=${o.base}`)
  writeFileSync(join(o.cwd, o.file), script)
  const run = Bun.spawn(['bash', '-euo', 'pipefail', o.file], { cwd: o.cwd, stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => run.kill(), 60_000)
  const [code, out, err] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ])
  clearTimeout(timer)
  return { code, out, err }
}
