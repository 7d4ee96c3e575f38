import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

// Third-party code Herald depends on beyond a package's documented API (UPSTREAM.md lists each):
// the patches bun applies at install (package.json patchedDependencies) and the imports that
// reach into a package's own modules. An upgrade that moves or rewrites what they rely on must
// fail here, by name, rather than quietly drop a patch or break a send at run time.

const root = join(import.meta.dir, '..')

/** One patched file: its path inside the package and the lines the patch adds to it. */
interface FilePatch {
  file: string
  added: string[]
}

/** The files of a unified diff (as `bun patch --commit` writes it) and each one's added lines. */
export function parsePatch(text: string): FilePatch[] {
  const files: FilePatch[] = []
  let current: FilePatch | undefined
  for (const line of text.split('\n')) {
    const header = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line)
    if (header) {
      current = { file: header[2] as string, added: [] }
      files.push(current)
    } else if (current && line.startsWith('+') && !line.startsWith('+++ ')) {
      const added = line.slice(1)
      if (added.trim() !== '') current.added.push(added)
    }
  }
  return files
}

/**
 * What no longer matches between a patch and the installed package, one sentence each: the
 * version the patch is named for, each patched file, and each line the patch adds to it.
 */
export function patchProblems(
  packageDir: string,
  name: string,
  version: string,
  patchPath: string,
): string[] {
  const remake = `re-make the patch on the new files (\`bun patch ${name}\`, edit, \`bun patch --commit\`) and check UPSTREAM.md`
  const manifest = join(packageDir, 'package.json')
  if (!existsSync(manifest)) return [`${name}: not installed at ${packageDir}; ${remake}`]
  const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
  if (installed !== version)
    return [
      `${name}: ${installed} is installed but ${relative(root, patchPath)} is made for ${version}; ${remake}`,
    ]

  const problems: string[] = []
  for (const { file, added } of parsePatch(readFileSync(patchPath, 'utf8'))) {
    const path = join(packageDir, file)
    if (!existsSync(path)) {
      problems.push(
        `${name}@${version}: ${file}, patched by ${relative(root, patchPath)}, is gone; ${remake}`,
      )
      continue
    }
    const lines = new Set(readFileSync(path, 'utf8').split('\n'))
    const missing = added.filter((line) => !lines.has(line))
    if (missing.length > 0)
      problems.push(
        `${name}@${version}: ${file} lacks ${missing.length} line(s) the patch adds (not applied at install?), first: ${JSON.stringify(missing[0]?.trim())}; run \`bun install\`, or ${remake}`,
      )
  }
  return problems
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  patchedDependencies: Record<string, string>
}

describe('patched packages still match their patches', () => {
  const entries = Object.entries(manifest.patchedDependencies)
  test('there are patches to check', () => expect(entries.length).toBeGreaterThan(0))
  for (const [key, patch] of entries) {
    const at = key.lastIndexOf('@')
    const name = key.slice(0, at)
    const version = key.slice(at + 1)
    test(`${name}@${version}`, () => {
      const problems = patchProblems(join(root, 'node_modules', name), name, version, join(root, patch))
      if (problems.length > 0) throw new Error(problems.join('\n'))
    })
  }
})

describe('the patch check itself', () => {
  // A package as bun installs it, and patches that no longer fit it: each must be reported.
  test('reports a version the patch is not made for, a moved file and a line not applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-upstream-'))
    try {
      const pkg = join(dir, 'node_modules', 'fake-lib')
      await mkdir(join(pkg, 'lib'), { recursive: true })
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'fake-lib', version: '2.0.0' }))
      writeFileSync(join(pkg, 'lib', 'a.js'), 'var x = 1;\nmodule.exports = x;\n')
      const patch = (file: string, line: string) =>
        `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,2 +1,2 @@\n-var x = 0;\n+${line}\n module.exports = x;\n`
      const write = (name: string, text: string) => {
        writeFileSync(join(dir, name), text)
        return join(dir, name)
      }

      const applied = write('applied.patch', patch('lib/a.js', 'var x = 1;'))
      expect(patchProblems(pkg, 'fake-lib', '2.0.0', applied)).toEqual([])

      const [older] = patchProblems(pkg, 'fake-lib', '1.0.0', applied)
      expect(older).toContain('fake-lib: 2.0.0 is installed but')
      expect(older).toContain('made for 1.0.0')
      expect(older).toContain('`bun patch fake-lib`')

      const [moved] = patchProblems(
        pkg,
        'fake-lib',
        '2.0.0',
        write('moved.patch', patch('dist/a.js', 'var x = 1;')),
      )
      expect(moved).toContain('fake-lib@2.0.0: dist/a.js, patched by')
      expect(moved).toContain('is gone')
      expect(moved).toContain('`bun patch fake-lib`')

      const [lacking] = patchProblems(
        pkg,
        'fake-lib',
        '2.0.0',
        write('lacking.patch', patch('lib/a.js', 'var x = 2;')),
      )
      expect(lacking).toContain('fake-lib@2.0.0: lib/a.js lacks 1 line(s)')
      expect(lacking).toContain('"var x = 2;"')
      expect(lacking).toContain('`bun patch fake-lib`')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** Every bare import specifier with a path inside its package (`pkg/sub`, `@scope/pkg/sub`). */
function deepImports(): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.tsx?$/.test(entry)) {
        const text = readFileSync(path, 'utf8')
        for (const m of text.matchAll(
          /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]((?:@[\w.-]+\/)?\w[\w.-]*\/[\w./@-]+)['"]/gm,
        )) {
          const spec = m[1] as string
          found.set(spec, [...(found.get(spec) ?? []), relative(root, path)])
        }
      }
    }
  }
  for (const dir of ['src', 'test', 'scripts']) walk(join(root, dir))
  return found
}

describe('imports into packages still resolve', () => {
  test('every package subpath imported by src, test and scripts', () => {
    const imports = deepImports()
    expect(imports.has('nodemailer/lib/smtp-connection')).toBe(true) // the scan sees them
    const problems: string[] = []
    for (const [spec, files] of imports) {
      try {
        Bun.resolveSync(spec, root)
      } catch {
        problems.push(
          `${spec} (imported by ${files.join(', ')}) no longer resolves: the package moved or dropped that module; see UPSTREAM.md`,
        )
      }
    }
    if (problems.length > 0) throw new Error(problems.join('\n'))
  })

  // nodemailer's modules below its documented transport API, and what Herald calls on them.
  const members: [string, string, string[]][] = [
    ['nodemailer/lib/base64', '', ['encode', 'wrap']],
    ['nodemailer/lib/qp', '', ['encode', 'wrap']],
    ['nodemailer/lib/mime-funcs', '', ['foldLines', 'hasLongerLines', 'isPlainText']],
    ['nodemailer/lib/mime-node', 'default.prototype', ['encodeHeaderValue']],
    ['nodemailer/lib/shared', '', ['parseConnectionUrl']],
    [
      'nodemailer/lib/smtp-connection',
      'default.prototype',
      ['connect', 'login', 'send', 'reset', 'quit', 'close'],
    ],
    ['nodemailer/lib/dkim', 'default.prototype', ['sign']],
  ]
  for (const [spec, path, names] of members) {
    test(`${spec} still has ${names.join(', ')}`, async () => {
      let target: Record<string, unknown> = await import(spec)
      for (const key of path.split('.').filter(Boolean)) target = target?.[key] as Record<string, unknown>
      const missing = names.filter((n) => typeof target?.[n] !== 'function')
      if (missing.length > 0)
        throw new Error(
          `${spec}${path ? ` (${path})` : ''} no longer has ${missing.join(', ')}: nodemailer changed a module Herald uses below its public API; see UPSTREAM.md`,
        )
    })
  }
})
