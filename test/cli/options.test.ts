import { expect, test } from 'bun:test'
import { VERSION } from '../../src/version'
import { cliCaptured } from '../helpers/cli'

// The command line's own options, in-process. `--version`/`-v` were refused as unknown options
// (node's parseArgs text, exit 2) while `herald version` worked; a mistyped option printed
// parseArgs' advice about positionals after '--'. Now `--version`/`-v` print what `herald version`
// prints, and an option that is wrong names itself and points to `herald help` (exit 2).

const version = await cliCaptured(['version'])

test('herald version prints the version', () => {
  expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' })
})

test.each([
  [['--version']],
  [['-v']],
  [['keys', 'list', '--version']],
])('herald %j prints the same as herald version', async (args) => {
  expect(await cliCaptured(args)).toEqual(version)
})

test.each([
  [['--help']],
  [['-h']],
  [['help']],
  [[]],
  [['serve', '--help']],
])('herald %j prints the usage', async (args) => {
  const r = await cliCaptured(args)
  expect(r.code).toBe(0)
  expect(r.stderr).toBe('')
  expect(r.stdout).toStartWith('Herald — ')
  expect(r.stdout).toContain('herald version')
})

const HINT = '(herald help lists the commands and their options)'
test.each([
  [['--colour', 'red'], `unknown option --colour ${HINT}`],
  [['serve', '--colour', 'red'], `unknown option --colour ${HINT}`],
  [['-x'], `unknown option -x ${HINT}`],
  [['-vx'], `unknown option -x ${HINT}`],
  [['--verison'], `unknown option --verison ${HINT}`],
  [['serve', '--port'], `--port needs a value ${HINT}`],
  [['keys', 'list', '--json=yes'], `--json takes no value ${HINT}`],
] as const)('herald %j → exit 2: %s', async (args, line) => {
  const r = await cliCaptured([...args])
  expect(r).toEqual({ code: 2, stdout: '', stderr: `herald: ${line}\n` })
})
