// Chromium side of the browser harness (tests import test/helpers/browser.ts): Debian Chromium
// (installed on first need, see ./chromium-install.ts) driven by playwright-core, a recorder of
// what goes wrong on a page, axe-core injected from the package, screenshots under
// test-results/screenshots/. One browser per test file.
import { afterAll, beforeAll, setDefaultTimeout } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
  type Response,
} from 'playwright-core'
import { CHROMIUM_INSTALL_TIMEOUT_MS, chromiumReady } from './chromium-install'

export const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium'

// Playwright refuses `--user-data-dir` in args: `launch()` always passes its own fresh
// temporary profile (`/tmp/playwright_chromiumdev_profile-*`, removed on close), which is what
// we want — no state shared between runs or test files.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export const SCREENSHOT_DIR = join(import.meta.dir, '..', '..', 'test-results', 'screenshots')

/** How long a Playwright action or navigation may wait before it fails, naming what it waited for. */
export const ACTION_TIMEOUT_MS = 10_000

/**
 * The timeout of each test in a file that drives the browser. Generous on purpose: when bun times
 * a test out it kills the child processes, which takes the file's Chromium down with it and turns
 * every later test of the file into a confusing failure.
 */
export const BROWSER_TEST_TIMEOUT_MS = 90_000

/**
 * Launches the file's Chromium, installing it first when it is missing (see chromium-install.ts);
 * a hook that calls this gives it CHROMIUM_INSTALL_TIMEOUT_MS.
 */
export async function launchBrowser(): Promise<Browser> {
  await chromiumReady(CHROMIUM)
  try {
    return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  } catch (e) {
    throw new Error(`could not start Chromium at ${CHROMIUM}: ${(e as Error).message}`)
  }
}

/** What went wrong on a page since it was last checked: console errors, CSP violations, ... */
export interface PageProblems {
  consoleErrors: string[]
  cspViolations: string[]
  pageErrors: string[]
  dialogs: { type: string; message: string }[]
  /** Subresource and navigation responses with status >= 400 (`status url`). */
  failedResponses: string[]
}

const problemsByPage = new WeakMap<Page, PageProblems>()

const emptyProblems = (): PageProblems => ({
  consoleErrors: [],
  cspViolations: [],
  pageErrors: [],
  dialogs: [],
  failedResponses: [],
})

/** The problems recorded on this page so far (empty for a page not opened by `newContext`). */
export function problems(page: Page): PageProblems {
  let p = problemsByPage.get(page)
  if (!p) {
    p = emptyProblems()
    problemsByPage.set(page, p)
  }
  return p
}

export function clearProblems(page: Page): void {
  problemsByPage.set(page, emptyProblems())
}

// The page's own `securitypolicyviolation` event is the precise signal for CSP (Chromium also logs
// a console error, which we record too). The listener is installed through the DevTools protocol
// (addInitScript), which CSP does not govern, and reports through a binding, so a page whose CSP
// forbids inline script can still tell us what it refused.
const CSP_BINDING = '__heraldCspViolation'
const CSP_LISTENER = `document.addEventListener('securitypolicyviolation', (e) => {
  window.${CSP_BINDING}(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') +
    ' at ' + e.sourceFile + ':' + e.lineNumber + (e.sample ? ' (' + e.sample + ')' : ''))
}, true)`

/**
 * A fresh context (its own cookies) whose pages record console errors, CSP violations, uncaught
 * exceptions, dialogs and failed responses (see `problems`). Confirm dialogs are accepted (a
 * confirmation before a destructive action is part of a flow); alerts and prompts are dismissed.
 */
export async function newContext(
  browser: Browser,
  baseURL?: string,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  // Reduced motion: Pico then drops its transitions, so a focus ring or a swap is complete the
  // moment it is read, never caught mid-animation.
  const context = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 900 },
    reducedMotion: 'reduce',
    ...options,
  })
  // A missing element fails in seconds with its selector, not at the test's timeout.
  context.setDefaultTimeout(ACTION_TIMEOUT_MS)
  await context.exposeBinding(CSP_BINDING, ({ page }, text: string) => {
    if (page) problems(page).cspViolations.push(text)
  })
  await context.addInitScript(CSP_LISTENER)
  context.on('page', watch)
  return context
}

function watch(page: Page): void {
  problems(page)
  page.on('console', (m) => {
    if (m.type() === 'error') problems(page).consoleErrors.push(`${m.text()} (${m.location().url})`)
  })
  page.on('pageerror', (e) => problems(page).pageErrors.push(String(e)))
  page.on('response', (r) => {
    if (r.status() >= 400) problems(page).failedResponses.push(`${r.status()} ${r.url()}`)
  })
  page.on('dialog', (d) => {
    problems(page).dialogs.push({ type: d.type(), message: d.message() })
    // A test may handle the dialog itself; then ours finds it already handled.
    const answer = d.type() === 'confirm' ? d.accept() : d.dismiss()
    answer.catch(() => {})
  })
}

/** Chromium's console line for any response >= 400, a page's own included. */
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of \d+/

/**
 * Fails when the page logged a console error, hit a CSP violation, threw, or opened a dialog
 * since the last check (then forgets them). `allowFailedResponses` lets a page under test answer
 * 4xx on purpose (a 403 page): those responses and Chromium's console line for them are let pass.
 */
export async function expectCleanPage(
  page: Page,
  options: { allowFailedResponses?: boolean } = {},
): Promise<void> {
  await flush(page)
  const p = problems(page)
  const lines = [
    ...p.cspViolations.map((s) => `CSP violation: ${s}`),
    ...p.consoleErrors
      .filter((s) => !(options.allowFailedResponses && FAILED_LOAD.test(s)))
      .map((s) => `console error: ${s}`),
    ...p.pageErrors.map((s) => `uncaught exception: ${s}`),
    ...p.dialogs.map((d) => `dialog (${d.type}): ${d.message}`),
    ...(options.allowFailedResponses ? [] : p.failedResponses.map((s) => `response: ${s}`)),
  ]
  clearProblems(page)
  if (lines.length) throw new Error(`${page.url()}: ${lines.length} problem(s)\n  ${lines.join('\n  ')}`)
}

/**
 * Lets the page run the tasks it has queued (a CSP violation event is fired from a task of its
 * own) and waits for their reports: bindings and console messages travel on the same DevTools
 * connection as the answer to this evaluate, so they arrive before it.
 */
export async function flush(page: Page): Promise<void> {
  if (page.isClosed()) return
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0))).catch(() => {})
}

/** Waits until the page has loaded and htmx has nothing in flight: no request, swap or settle. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('load')
  await page.waitForFunction(() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling'))
}

/**
 * Clicks something that loads a page — a plain link or form (a navigation) or one boosted by htmx
 * (an XHR whose answer is swapped into <main>) — and waits for the final answer (redirects
 * followed) and for htmx to settle. Returns that answer, so a test can check its status.
 */
export async function follow(page: Page, target: Locator): Promise<Response> {
  const answer = page.waitForResponse((r) => {
    const request = r.request()
    // After a redirect, the request that carried htmx's header is the first of the chain.
    let first = request
    while (first.redirectedFrom()) first = first.redirectedFrom()!
    const loads =
      (request.isNavigationRequest() && request.frame() === page.mainFrame()) ||
      first.headers()['hx-request'] === 'true'
    return loads && (r.status() < 300 || r.status() >= 400)
  })
  answer.catch(() => {}) // when the click itself fails, its error is the one to report
  await target.click()
  const response = await answer
  await settle(page)
  return response
}

/** Navigates and fails (naming the URL) unless the final answer has the expected status. */
export async function visit(page: Page, path: string, status = 200): Promise<Response> {
  const res = await page.goto(path, { waitUntil: 'load' })
  if (!res) throw new Error(`${path}: no response`)
  if (res.status() !== status)
    throw new Error(`${path} → ${page.url()}: status ${res.status()}, expected ${status}`)
  await settle(page)
  return res
}

// ---------------------------------------------------------------------------------------------
// axe-core

let axeSource: string | undefined

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  helpUrl: string
  nodes: { target: unknown[]; failureSummary?: string }[]
}

/**
 * Runs axe-core on the page and fails on any serious or critical violation, listing each rule,
 * its help text and the first offending nodes. Returns the minor/moderate ones for information.
 *
 * Injection: `page.addScriptTag({content})` adds an inline <script>, which the portal's CSP
 * refuses (and which would itself be reported as a CSP violation). `bypassCSP` on the context
 * would hide the very violations the crawl looks for. `page.evaluate` of the source runs through
 * the DevTools protocol, which CSP does not govern, so the page keeps its real policy.
 */
export async function expectNoSeriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource)
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    })))`,
  )) as AxeViolation[]
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (serious.length) {
    const lines = serious.map(
      (v) =>
        `[${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n` +
        v.nodes
          .slice(0, 5)
          .map((n) => `      ${JSON.stringify(n.target)} ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
          .join('\n'),
    )
    throw new Error(
      `${page.url()}: ${serious.length} serious/critical axe violation(s)\n  ${lines.join('\n  ')}`,
    )
  }
  return violations.filter((v) => !serious.includes(v))
}

// ---------------------------------------------------------------------------------------------
// screenshots

/** A full-page PNG at test-results/screenshots/<name>.png (name made file-safe); returns the path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const safe =
    name
      .replace(/^\/+/, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'root'
  const path = join(SCREENSHOT_DIR, `${safe}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

// ---------------------------------------------------------------------------------------------
// one browser per test file

export interface BrowserHandle {
  /** The file's browser; available inside tests (launched in beforeAll). */
  readonly browser: Browser
}

/**
 * Launches one Chromium for the test file in beforeAll and closes it in afterAll, which bun runs
 * even when tests fail. Call at the top level of the test file.
 */
export function useBrowser(): BrowserHandle {
  let browser: Browser | undefined
  setDefaultTimeout(BROWSER_TEST_TIMEOUT_MS)
  beforeAll(
    async () => {
      browser = await launchBrowser()
    },
    { timeout: CHROMIUM_INSTALL_TIMEOUT_MS },
  )
  afterAll(async () => {
    await closeBrowser(browser)
    browser = undefined
  })
  return {
    get browser() {
      if (!browser) throw new Error('the browser is not running (use it inside a test)')
      return browser
    },
  }
}

/**
 * Closes the browser, waiting at most 10 s so a wedged Chromium cannot hang the suite (Playwright
 * also kills the browsers it launched when the test process exits).
 */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return
  const closing = browser.close().catch(() => {})
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 10_000)
  })
  await Promise.race([closing, late])
  clearTimeout(timer)
}
