// The browser harness itself, against tiny static pages under the portal's kind of CSP: each check
// must pass on a good page and fail, naming the page, on a bad one.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  flush,
  newContext,
  problems,
  screenshot,
  useBrowser,
  visit,
} from '../../helpers/chromium'
import { expectNoInjectedMarkup } from '../../helpers/portal-seed'

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<script src="/app.js"></script></head><body><main><h1>${title}</h1>${body}</main></body></html>`

const pages: Record<string, string> = {
  '/good': page('Good', '<form><label for="e">Email</label><input id="e" name="email"></form>'),
  '/bad-a11y': page('Bad', '<img src="/x.png"><input name="nolabel">'),
  '/inline': page('Inline', '<script>window.inlineRan = 1</script>'),
  '/console': page('Console', '<script src="/error.js"></script>'),
  '/injected': page(
    'Injected',
    '<p>&lt;img src=x onerror=alert(1)&gt;</p><img alt="" src=x onerror="alert(1)">',
  ),
  '/xss-set': page('Set', '<script src="/xss.js"></script><p>&lt;script&gt;</p>'),
}
const scripts: Record<string, string> = {
  '/app.js': 'window.appRan = 1',
  '/error.js': 'console.error("boom from error.js")',
  '/xss.js': 'window.__xss = 1',
}

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname
    if (pages[path])
      return new Response(pages[path], {
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP },
      })
    // Chromium asks for one; a 404 would be a console error (as it would on the portal).
    if (path === '/favicon.ico') return new Response(null, { status: 204 })
    if (scripts[path]) return new Response(scripts[path], { headers: { 'content-type': 'text/javascript' } })
    return new Response('not here', { status: 404 })
  },
})
afterAll(() => server.stop(true))
const base = `http://127.0.0.1:${server.port}`

const b = useBrowser()

describe('browser harness (static pages)', () => {
  test('a good page under a strict CSP: 200, axe clean (injected without a CSP violation), screenshot written', async () => {
    const context = await newContext(b.browser, base)
    const p = await context.newPage()
    await visit(p, '/good')
    expect(await p.evaluate('window.appRan')).toBe(1)
    await expectNoSeriousViolations(p)
    // Running axe twice on one document reuses the injected copy.
    await expectNoSeriousViolations(p)
    const file = await screenshot(p, '/harness/good')
    expect(file.endsWith('test-results/screenshots/harness_good.png')).toBe(true)
    expect(existsSync(file)).toBe(true)
    expect([...readFileSync(file).subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG')
    await expectCleanPage(p)
    await context.close()
  })

  test('axe: serious/critical violations fail, listing the rule and the page URL', async () => {
    const context = await newContext(b.browser, base)
    const p = await context.newPage()
    await visit(p, '/bad-a11y')
    const error = await expectNoSeriousViolations(p).then(
      () => null,
      (e: Error) => e.message,
    )
    expect(error).toContain(`${base}/bad-a11y`)
    expect(error).toContain('image-alt')
    expect(error).toContain('label')
    await context.close()
  })

  test('an inline script refused by the CSP is reported as a CSP violation', async () => {
    const context = await newContext(b.browser, base)
    const p = await context.newPage()
    await visit(p, '/inline')
    expect(await p.evaluate('window.inlineRan')).toBeUndefined()
    await flush(p)
    expect(problems(p).cspViolations.join('\n')).toContain('script-src')
    await expect(expectCleanPage(p)).rejects.toThrow(/CSP violation: script-src/)
    await context.close()
  })

  test('injected markup: escaped text passes; an event-handler attribute or window.__xss fails, naming the page', async () => {
    const context = await newContext(b.browser, base)
    const p = await context.newPage()
    await visit(p, '/good')
    await expectNoInjectedMarkup(p)
    await visit(p, '/injected')
    await expect(expectNoInjectedMarkup(p)).rejects.toThrow(
      /\/injected: hostile text became markup\n.*<img onerror="alert\(1\)">/,
    )
    await visit(p, '/xss-set')
    await expect(expectNoInjectedMarkup(p)).rejects.toThrow(/window\.__xss = 1/)
    await context.close()
  })

  test('console errors, failed responses and wrong statuses fail, naming the page', async () => {
    const context = await newContext(b.browser, base)
    const p = await context.newPage()
    await visit(p, '/console')
    await expect(expectCleanPage(p)).rejects.toThrow(/\/console: .*\n.*console error: boom from error\.js/)
    await visit(p, '/bad-a11y') // its image is a 404
    await expect(expectCleanPage(p)).rejects.toThrow(/response: 404 .*\/x\.png/)
    await expect(visit(p, '/missing')).rejects.toThrow(/\/missing .*status 404, expected 200/)
    await context.close()
  })
})
