// XSS probes in real Chromium: a contact named `<img src=x onerror=alert(1)>` with the company
// `<script>window.__xss=1</script>` (and the other probes of portal-seed.ts, made through the REST
// API) must show as literal text on every page that shows them — no dialog, `window.__xss` never
// set, no markup made from them. Every page listed must be routed by the portal's registry (a
// renamed route fails here rather than silently dropping its probe). The crawl test checks every
// nav page and record page for injected markup too; this file also checks the text is *visible*.
import { beforeAll, describe, expect, test } from 'bun:test'
import { sections } from '../../../src/http/admin/sections'
import { expectCleanPage, flush, problems, settle, usePortal, visit } from '../../helpers/browser'
import { expectNoInjectedMarkup, type HostileData, seedHostileData, XSS } from '../../helpers/portal-seed'

const portal = await usePortal({ workers: true })
let data: HostileData
let messageId: string
beforeAll(async () => {
  data = await seedHostileData(portal.herald)
  const sent = await portal.herald.call('GET', `/api/v1/messages?campaign_id=${data.campaignId}`)
  messageId = sent.body.data[0].id
})

/** Whether the portal's registry has a GET route for this path (`:id` segments match anything). */
function routed(pattern: string): boolean {
  const want = pattern.split('/')
  return sections.some((s) =>
    s.routes.some((r) => {
      if (r.method !== 'GET') return false
      const have = r.path.split('/')
      return (
        have.length === want.length &&
        have.every((seg, i) => seg === want[i] || (seg.startsWith(':') && want[i] === ':id'))
      )
    }),
  )
}

// Each page and the probes it must show as text.
const pages: { route: string; path: () => string; shows: string[] }[] = [
  { route: '/admin/contacts', path: () => '/admin/contacts', shows: [XSS.name, XSS.company] },
  {
    route: '/admin/contacts/:id',
    path: () => `/admin/contacts/${data.contactId}`,
    shows: [XSS.name, XSS.attribute, XSS.company],
  },
  { route: '/admin/lists', path: () => '/admin/lists', shows: [XSS.name] },
  { route: '/admin/lists/:id', path: () => `/admin/lists/${data.listId}`, shows: [XSS.name] },
  { route: '/admin/segments', path: () => '/admin/segments', shows: [XSS.company] },
  { route: '/admin/segments/:id', path: () => `/admin/segments/${data.segmentId}`, shows: [XSS.company] },
  { route: '/admin/templates', path: () => '/admin/templates', shows: [XSS.name] },
  { route: '/admin/templates/:id', path: () => `/admin/templates/${data.templateId}`, shows: [XSS.name] },
  { route: '/admin/campaigns', path: () => '/admin/campaigns', shows: [XSS.company] },
  { route: '/admin/campaigns/:id', path: () => `/admin/campaigns/${data.campaignId}`, shows: [XSS.company] },
  { route: '/admin/messages', path: () => '/admin/messages', shows: [`Hello ${XSS.name}`] },
  { route: '/admin/messages/:id', path: () => `/admin/messages/${messageId}`, shows: [`Hello ${XSS.name}`] },
  { route: '/admin/senders', path: () => '/admin/senders', shows: [XSS.name] },
  { route: '/admin/api-keys', path: () => '/admin/api-keys', shows: [XSS.attribute] },
  { route: '/admin/agents', path: () => '/admin/agents', shows: [XSS.name] },
  { route: '/admin/clients', path: () => '/admin/clients', shows: [XSS.attribute] },
]

describe('XSS probes render as inert text (browser)', () => {
  test('every probed page is a route of the portal', () => {
    expect(pages.map((p) => p.route).filter((route) => !routed(route))).toEqual([])
  })

  for (const p of pages)
    test(`${p.route} shows ${p.shows.length} probe(s) literally and runs none`, async () => {
      const page = await portal.pageAs('owner')
      const path = p.path()
      const res = await page.goto(path, { waitUntil: 'load' })
      expect(`${path} → ${res?.status()}`).toBe(`${path} → 200`)
      await settle(page)
      await expectNoInjectedMarkup(page)
      const text = await page.locator('main').innerText()
      for (const probe of p.shows)
        if (!text.includes(probe)) throw new Error(`${page.url()}: "${probe}" is not shown as text in <main>`)
      // A rendered email may only appear inside a sandbox that runs no script.
      for (const sandbox of await page
        .locator('iframe')
        .evaluateAll((fs) => fs.map((f) => f.getAttribute('sandbox'))))
        expect(`iframe sandbox="${sandbox}"`).not.toMatch(/sandbox="null"|allow-scripts/)
      await expectCleanPage(page) // no dialog, console error or CSP violation
      await page.close()
    })

  // The last line of defence, checked where it acts: should markup ever get through, the browser
  // itself refuses to run it under the portal's CSP. (eval cannot be probed from here: code the
  // DevTools protocol evaluates is exempt from the page's CSP.)
  test('the portal CSP makes Chromium refuse inline script and inline handlers', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/contacts')
    const ran = await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>
      const script = document.createElement('script')
      script.textContent = 'window.__inline = 1'
      document.body.append(script)
      const img = document.createElement('img')
      img.setAttribute('onerror', 'window.__handler = 1')
      img.src = 'data:,'
      document.body.append(img)
      return w.__inline
    })
    expect(ran).toBeUndefined()
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>('img[onerror]')?.complete)
    await flush(page)
    expect(
      await page.evaluate(() => (window as unknown as Record<string, unknown>).__handler),
    ).toBeUndefined()
    const refused = problems(page).cspViolations
    expect(refused.some((v) => v.startsWith('script-src-elem blocked inline'))).toBe(true)
    expect(refused.some((v) => v.startsWith('script-src-attr blocked inline'))).toBe(true)
    await page.close()
  })
})
