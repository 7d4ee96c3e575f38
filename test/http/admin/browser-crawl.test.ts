// Every page of the portal's navigation in real Chromium, as an owner, over data whose names are
// XSS probes: each page answers 200, has no serious or critical axe-core violation, logs no console
// error, hits no CSP violation, opens no dialog and turns no hostile text into markup; a screenshot
// of each is saved under test-results/screenshots/. The nav is built from the section registry, so
// sections added later are crawled without touching this file. Pages linked from those (record
// pages, forms, confirmations) are crawled too, two links deep, one per kind; no link is broken.
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  screenshot,
  settle,
  usePortal,
} from '../../helpers/browser'
import { expectNoInjectedMarkup, seedHostileData } from '../../helpers/portal-seed'

const portal = await usePortal({ workers: true })
beforeAll(async () => {
  await seedHostileData(portal.herald)
})

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
/** A bound on the owner's crawl, far above the portal's page kinds, so a loop of links cannot run on. */
const MAX_PAGES = 150

/** Same-origin portal paths of the links inside `selector`, in page order, without duplicates. */
async function portalLinks(page: Page, selector: string): Promise<string[]> {
  const hrefs = await page.$$eval(`${selector} a[href]`, (as) => as.map((a) => (a as HTMLAnchorElement).href))
  const paths = hrefs
    .map((h) => new URL(h))
    .filter((u) => u.origin === new URL(page.url()).origin && u.pathname.startsWith('/admin'))
    .map((u) => u.pathname + u.search)
  return [...new Set(paths)]
}

/** Every problem of one page, as lines naming the path (an empty list when the page is fine). */
async function inspect(page: Page, path: string, options: { axe: boolean; screenshot: boolean }) {
  const problems: string[] = []
  const attempt = async (what: string, check: () => Promise<unknown>) => {
    try {
      await check()
    } catch (e) {
      problems.push(`${path} [${what}] ${(e as Error).message}`)
    }
  }
  const res = await page.goto(path, { waitUntil: 'load' }).catch((e: Error) => e)
  if (res instanceof Error || !res)
    return [`${path}: navigation failed: ${res ? res.message : 'no response'}`]
  if (res.status() !== 200 || new URL(page.url()).pathname !== path.split('?')[0])
    problems.push(`${path}: answered ${res.status()} at ${page.url()}`)
  await attempt('settle', () => settle(page))
  if (options.axe) await attempt('axe', () => expectNoSeriousViolations(page))
  await attempt('xss', () => expectNoInjectedMarkup(page))
  if (options.screenshot) await attempt('screenshot', () => screenshot(page, path.replace(UUID, 'id')))
  await attempt('page', () => expectCleanPage(page))
  return problems
}

describe('portal crawl (browser)', () => {
  test('as owner: every page reachable within two links of the nav, one per kind — 200, axe, no console/CSP errors, no XSS, screenshot, no broken link', async () => {
    const page = await portal.pageAs('owner')
    await page.goto('/admin', { waitUntil: 'load' })
    const nav = await portalLinks(page, 'nav')
    expect(nav).toContain('/admin/api-keys')

    // Breadth first from the nav; one page per kind (`/admin/contacts/id/edit`: ids and queries
    // folded), so a list of 50 records costs one record page, and a new sub-page is found by itself.
    const kindOf = (path: string) => path.split('?')[0]!.replace(UUID, 'id')
    const problems: string[] = []
    const crawled: string[] = []
    const seen = new Set<string>()
    const queue = nav.map((path) => ({ path, depth: 0, from: 'the nav' }))
    while (queue.length && crawled.length < MAX_PAGES) {
      const { path, depth, from } = queue.shift()!
      if (seen.has(kindOf(path))) continue
      seen.add(kindOf(path))
      // A link to a download (CSV export) is checked for its status only: it is not a page.
      const head = await page.request.get(path, { maxRedirects: 0 })
      if (head.status() >= 400) {
        problems.push(`${path} (linked from ${from}): answered ${head.status()}`)
        continue
      }
      if (!(head.headers()['content-type'] ?? '').startsWith('text/html')) continue
      crawled.push(path)
      problems.push(...(await inspect(page, path, { axe: true, screenshot: true })))
      if (depth < 2)
        for (const link of await portalLinks(page, 'main').catch(() => [] as string[]))
          if (!seen.has(kindOf(link))) queue.push({ path: link, depth: depth + 1, from: path })
    }

    console.log(`crawled ${crawled.length} portal pages:\n  ${crawled.join('\n  ')}`)
    // The crawl must get past the nav: record pages (reached only from a list) and their sub-pages
    // are in it, so a list that stops rendering its links fails here instead of shrinking the crawl.
    const kinds = new Set(crawled.map(kindOf))
    for (const want of [
      '/admin/contacts/id',
      '/admin/campaigns/id',
      '/admin/templates/id',
      '/admin/contacts/id/edit',
    ])
      expect(kinds).toContain(want)
    expect(crawled.length).toBeGreaterThan(nav.length)
    if (problems.length)
      throw new Error(`${problems.length} problem(s) on portal pages:\n\n${problems.join('\n\n')}`)
  }, 300_000)

  test('as admin in “All workspaces” (chosen from the header): every nav page answers 200, axe and console clean', async () => {
    const page = await portal.pageAs('admin')
    await page.goto('/admin', { waitUntil: 'load' })
    // The switcher submits itself on change (app.js), a full page load.
    await Promise.all([page.waitForNavigation(), page.selectOption('#workspace-select', '')])
    await settle(page)
    expect(await page.locator('[role="status"]').innerText()).toContain('all workspaces')
    const nav = await portalLinks(page, 'nav')
    const problems: string[] = []
    for (const path of nav) problems.push(...(await inspect(page, path, { axe: true, screenshot: false })))
    // The choice survives a reload.
    await page.reload()
    expect(await page.locator('#workspace-select').inputValue()).toBe('')
    if (problems.length)
      throw new Error(`${problems.length} problem(s) in all workspaces:\n\n${problems.join('\n\n')}`)
  }, 180_000)

  test('without JavaScript: every nav page still answers 200 with its heading (plain links and forms)', async () => {
    const owner = await portal.user('owner')
    const page = await (await portal.contextFor(owner, { javaScriptEnabled: false })).newPage()
    await page.goto('/admin', { waitUntil: 'load' })
    const problems: string[] = []
    for (const path of await portalLinks(page, 'nav')) {
      const res = await page.goto(path, { waitUntil: 'load' })
      const h1 = await page.locator('main h1').count()
      if (res?.status() !== 200 || h1 !== 1)
        problems.push(`${path}: answered ${res?.status()} with ${h1} <h1> in <main>`)
    }
    if (problems.length)
      throw new Error(`${problems.length} problem(s) without JavaScript:\n  ${problems.join('\n  ')}`)
  })

  for (const role of ['viewer', 'member'] as const)
    test(`as ${role}: every page of the ${role}’s nav answers 200 (or the 403 page) with no console/CSP errors`, async () => {
      // A member works only in the clients chosen for it: here the Default workspace.
      const user = await portal.user(role, { clients: [portal.herald.defaultClientId] })
      const page = await (await portal.contextFor(user)).newPage()
      await page.goto('/admin', { waitUntil: 'load' })
      const nav = await portalLinks(page, 'nav')
      expect(nav.length).toBeGreaterThan(0)
      const problems: string[] = []
      for (const path of nav) {
        const res = await page.goto(path, { waitUntil: 'load' })
        if (!res || (res.status() !== 200 && res.status() !== 403))
          problems.push(`${path}: answered ${res?.status()}`)
        await settle(page)
        try {
          await expectCleanPage(page, { allowFailedResponses: res?.status() === 403 })
        } catch (e) {
          problems.push((e as Error).message)
        }
      }
      if (problems.length)
        throw new Error(`${problems.length} problem(s) as ${role}:\n\n${problems.join('\n\n')}`)
    }, 120_000)
})
