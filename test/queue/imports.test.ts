import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

// The send queue moves messages; the domain hands it its sources and rules (src/sending.ts).
// So src/queue may name the domain's types but load none of its code: what Bun's transpiler
// keeps of a file's imports (type-only ones are erased) must not reach src/services. Biome's
// noRestrictedImports cannot tell `import type` apart, hence this test.

const ROOT = resolve(import.meta.dir, '../..')
const QUEUE = join(ROOT, 'src/queue')
const SERVICES = join(ROOT, 'src/services')

const transpiler = new Bun.Transpiler({ loader: 'ts' })

/** The modules of src/services that `code`, a file at `file`, loads when it runs. */
const servicesLoaded = (code: string, file: string): string[] =>
  transpiler
    .scanImports(code)
    .map((i) => i.path)
    .filter((path) => path.startsWith('.') && resolve(dirname(file), path).startsWith(`${SERVICES}/`))

const valueImportsOfServices = (file: string) => servicesLoaded(readFileSync(file, 'utf8'), file)

test('src/queue imports only types from src/services', () => {
  const files = readdirSync(QUEUE, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
  expect(files).toContain('worker.ts')
  const breaks = files.flatMap((f) => valueImportsOfServices(join(QUEUE, f)).map((path) => `${f}: ${path}`))
  expect(breaks).toEqual([])
})

test('the check sees a value import and lets a type import through', () => {
  const probe = join(QUEUE, 'sources/probe.ts')
  const scan = (code: string) => servicesLoaded(code, probe)
  expect(scan(`import type { A } from '../../services/x'\nexport const a: A = 1`)).toEqual([])
  expect(scan(`import { type A } from '../../services/x'\nexport const a: A = 1`)).toEqual([])
  expect(scan(`import { a } from '../../services/x'\nexport const b = a`)).toEqual(['../../services/x'])
  expect(scan(`export { a } from '../../services/x'`)).toEqual(['../../services/x'])
  expect(scan(`import { a } from '../../lib/x'\nexport const b = a`)).toEqual([])
})
