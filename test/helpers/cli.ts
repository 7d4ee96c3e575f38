import { runCli } from '../../src/cli'

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
