import { describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isStale, viewIndexSource } from '../../../scripts/embed-views'
import { embeddedAssets, embeddedViews } from '../../../src/http/admin/views.generated'

// Every file under views/ must be in the binary: the generated index is rebuilt by the build,
// and this test fails when a view was added, removed or renamed without regenerating it.

const views = join(import.meta.dir, '../../../views')

describe('embedded views', () => {
  test('src/http/admin/views.generated.ts matches views/ (run: bun run scripts/embed-views.ts)', () => {
    expect(isStale()).toBe(false)
  })

  test('every .liquid file is embedded under its path, with its content', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      )
    const files = walk(views).filter((f) => f.endsWith('.liquid'))
    expect(files.length).toBeGreaterThan(10)
    for (const f of files) expect(embeddedViews[f.slice(views.length + 1)]).toBe(readFileSync(f, 'utf8'))
    expect(Object.keys(embeddedViews).length).toBe(files.length)
  })

  test('a view added, or removed, without regenerating is seen as stale', () => {
    const root = mkdtempSync(join(tmpdir(), 'herald-views-'))
    try {
      cpSync(views, join(root, 'views'), { recursive: true })
      mkdirSync(join(root, 'src/http/admin'), { recursive: true })
      writeFileSync(join(root, 'src/http/admin/views.generated.ts'), viewIndexSource(root))
      expect(isStale(root)).toBe(false)
      writeFileSync(join(root, 'views/pages/api-keys/extra.liquid'), '<p>new</p>')
      expect(isStale(root)).toBe(true)
      rmSync(join(root, 'views/pages/api-keys/extra.liquid'))
      expect(isStale(root)).toBe(false)
      rmSync(join(root, 'views/pages/api-keys/revoke.liquid'))
      expect(isStale(root)).toBe(true)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  test('assets: htmx 2, Pico CSS and ours', () => {
    expect(Object.keys(embeddedAssets).sort()).toEqual(['app.css', 'app.js', 'htmx.min.js', 'pico.min.css'])
    expect(embeddedAssets['htmx.min.js']).toContain('2.0.11')
  })

  test('no template uses inline script, inline style or hx-on', () => {
    for (const [name, text] of Object.entries(embeddedViews)) {
      expect({ name, inline: /<script(?![^>]*\bsrc=)/.test(text) }).toEqual({ name, inline: false })
      expect({ name, style: /\sstyle=|<style/.test(text) }).toEqual({ name, style: false })
      expect({ name, hxOn: /hx-on/.test(text) }).toEqual({ name, hxOn: false })
    }
  })
})
