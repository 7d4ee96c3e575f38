// Keyboard use of the portal in real Chromium (issue 10: "keyboard reachable, visible focus"): on
// every nav page, the first Tab stop is the skip link and it moves focus to <main>; tabbing through
// the page reaches the nav, and every element that takes focus shows it (an outline or a ring)
// and is on screen while focused.
import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { settle, usePortal } from '../../helpers/browser'

const portal = await usePortal()
/** Tab presses per page beyond the nav's links: the header and a page's first controls. */
const EXTRA_TABS = 20

interface Stop {
  what: string
  style: string
  visible: boolean
  onScreen: boolean
}

/** Where focus is after one more Tab, and whether a sighted keyboard user can see it. */
async function tab(page: Page): Promise<Stop | null> {
  await page.keyboard.press('Tab')
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (!el || el === document.body) return null
    const cs = getComputedStyle(el)
    const outline = cs.outlineStyle !== 'none' && Number.parseFloat(cs.outlineWidth) > 0
    // A ring is a box-shadow of some size (colours stripped, then any non-zero length).
    const ring = cs.boxShadow
      .replace(/rgba?\([^)]*\)/g, '')
      .split(/[\s,]+/)
      .some((v) => Number.parseFloat(v) > 0)
    const r = el.getBoundingClientRect()
    const label = (el.getAttribute('aria-label') ?? el.textContent ?? '')
      .trim()
      .replace(/\s+/g, ' ')
      .slice(0, 40)
    return {
      style: `outline ${cs.outlineStyle} ${cs.outlineWidth}, box-shadow ${cs.boxShadow}`,
      what: `<${el.localName}${el.id ? `#${el.id}` : ''}${el.getAttribute('href') ? ` href=${el.getAttribute('href')}` : ''}> "${label}"`,
      // Focus inside a native control's own parts (a date input's calendar button) leaves the
      // host matching :focus-within only; the browser draws that ring itself, out of our reach.
      visible: outline || ring || !el.matches(':focus'),
      onScreen:
        r.width > 0 &&
        r.height > 0 &&
        r.bottom > 0 &&
        r.right > 0 &&
        r.top < innerHeight &&
        r.left < innerWidth,
    }
  })
}

describe('keyboard (browser)', () => {
  test('every nav page: skip link first and into <main>, nav reachable, focus always visible and on screen', async () => {
    const page = await portal.pageAs('owner')
    await page.goto('/admin', { waitUntil: 'load' })
    const nav = await page.$$eval('nav#sections a[href]', (as) => as.map((a) => a.getAttribute('href')!))
    expect(nav.length).toBeGreaterThan(1)
    const problems: string[] = []
    for (const path of nav) {
      await page.goto(path, { waitUntil: 'load' })
      await settle(page)
      const first = await tab(page)
      if (!first?.what.includes('skip-link') && !/skip to content/i.test(first?.what ?? ''))
        problems.push(`${path}: first Tab stop is ${first?.what ?? 'nothing'}, not the skip link`)
      else {
        await page.keyboard.press('Enter')
        const inMain = await page.evaluate(() => document.activeElement?.id === 'main')
        if (!inMain) problems.push(`${path}: the skip link does not move focus to <main>`)
        await page.goto(path, { waitUntil: 'load' })
        await settle(page)
      }
      const reached = new Set<string>()
      for (let i = 0; i < nav.length + EXTRA_TABS; i++) {
        const stop = await tab(page)
        if (!stop) break
        reached.add(stop.what)
        if (!stop.visible) problems.push(`${path}: no visible focus on ${stop.what} (${stop.style})`)
        if (!stop.onScreen) problems.push(`${path}: focused but off screen: ${stop.what}`)
      }
      if (![...reached].some((w) => w.includes(`href=${nav[nav.length - 1]}`)))
        problems.push(
          `${path}: ${nav.length + EXTRA_TABS} Tabs did not reach the last nav link (${nav[nav.length - 1]})`,
        )
    }
    if (problems.length)
      throw new Error(`${problems.length} keyboard problem(s):\n  ${problems.join('\n  ')}`)
  })
})
