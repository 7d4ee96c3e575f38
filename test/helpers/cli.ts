import { runCli } from '../../src/cli'
import type { TestApp } from './app'

// `herald …` run in-process (runCli) with stdout and stderr captured: the exit code and exactly
// what the operator would see. console.log is captured too (the commands print with it).

export async function cliCaptured(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = []
  const err: string[] = []
  const write = { out: process.stdout.write, err: process.stderr.write }
  const log = console.log
  const capture = (into: string[]) =>
    ((chunk: string, cb?: () => void) => {
      into.push(String(chunk))
      cb?.()
      return true
    }) as typeof process.stdout.write
  process.stdout.write = capture(out)
  process.stderr.write = capture(err)
  console.log = (...a: unknown[]) => out.push(`${a.join(' ')}\n`)
  try {
    const code = await runCli(args)
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    process.stdout.write = write.out
    process.stderr.write = write.err
    console.log = log
  }
}

/**
 * `cliCaptured` with `--data` the test app's data directory, on the app's store: its PostgreSQL
 * database when the run is on PostgreSQL (the command reads HERALD_DATABASE_URL, which holds
 * only a placeholder in a test process there), as an operator's command on that instance.
 */
export async function cliOnApp(
  t: Pick<TestApp, 'ctx' | 'dataDir'>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const url = t.ctx.config.databaseUrl
  const before = process.env.HERALD_DATABASE_URL
  if (url) process.env.HERALD_DATABASE_URL = url
  try {
    return await cliCaptured([...args, '--data', t.dataDir])
  } finally {
    if (before === undefined) delete process.env.HERALD_DATABASE_URL
    else process.env.HERALD_DATABASE_URL = before
  }
}
