// Browser harness for the admin portal (the entry point tests import): an in-process Herald served
// over real HTTP on a random localhost port, portal users made through the users verb, and a
// logged-in browser context per role, reused across the tests of a file. The Chromium side (launch,
// page problems, axe, screenshots) is in ./chromium.ts and re-exported here.
import { afterAll, beforeAll, setDefaultTimeout } from 'bun:test'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { withActor } from '../../src/context'
import type { Clock } from '../../src/lib/time'
import type { LeasedWorker } from '../../src/queue/leased-worker'
import { startSending } from '../../src/queue/start'
import { sendDeps } from '../../src/sending'
import { type PortalRole, systemActor } from '../../src/services/actors/actor'
import { createFlowWorker } from '../../src/services/flows/worker'
import { createImportWorker } from '../../src/services/imports/runner'
import { createUserVerb } from '../../src/services/users/verbs'
import { invoke } from '../../src/services/verbs/invoke'
import { startWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp, type TestApp } from './app'
import { BROWSER_TEST_TIMEOUT_MS, closeBrowser, launchBrowser, newContext } from './chromium'
import { CHROMIUM_INSTALL_TIMEOUT_MS } from './chromium-install'
import { freePort } from './ports'

export * from './chromium'

export interface PortalUser {
  id: string
  email: string
  password: string
  role: PortalRole
}

export interface Portal {
  /** The Herald behind the portal (its `call` reaches the REST API in-process). */
  herald: TestApp
  /** `http://127.0.0.1:<port>`, also Herald's public URL. */
  url: string
  readonly browser: Browser
  /** A new portal user with this role (a fresh email each call unless given). */
  user(
    role: PortalRole,
    options?: { email?: string; password?: string; clients?: string[] },
  ): Promise<PortalUser>
  /** A context logged in as a user of this role, made once per file and reused. */
  contextAs(role: PortalRole): Promise<BrowserContext>
  /** A new page in the role's logged-in context (close it when done, or leave it to afterAll). */
  pageAs(role: PortalRole): Promise<Page>
  /** A fresh context signed in as this user (for users made with options, e.g. a member's clients). */
  contextFor(user: PortalUser, options?: BrowserContextOptions): Promise<BrowserContext>
  /** A fresh context with no session (cookies of its own). */
  anonymous(): Promise<BrowserContext>
  /** The user behind `contextAs(role)`, once made. */
  userOf(role: PortalRole): PortalUser | undefined
}

/**
 * Starts Herald (fresh database, optional injected clock) listening on 127.0.0.1 and one Chromium
 * for the test file. Call at the top level of the test file. Teardown (in afterAll, which bun runs
 * even when tests fail) closes the browser, then the server, then the database — in that order, so
 * no request from a live page meets a closed database.
 */
export async function usePortal(
  options: {
    clock?: Clock
    env?: Record<string, string>
    /** Run the workers `herald serve` runs (sending, imports, webhooks, journeys), as serve does. */
    workers?: boolean
  } = {},
): Promise<Portal> {
  let browser: Browser | undefined
  const contexts = new Map<PortalRole, Promise<BrowserContext>>()
  const users = new Map<PortalRole, PortalUser>()
  let serial = 0
  setDefaultTimeout(BROWSER_TEST_TIMEOUT_MS)

  // Registered before createTestApp registers its own afterAll (bun runs them in order).
  const workers: LeasedWorker[] = []
  afterAll(async () => {
    await closeBrowser(browser)
    browser = undefined
    await Promise.all(workers.map((w) => w.stop()))
    await herald.app.stop(true).catch(() => {})
  })

  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  // Scenarios sign in many times a minute from 127.0.0.1: the per-IP sign-in bucket (20/min by
  // default) is raised out of their way unless the test sets it.
  const herald = await createTestApp({
    clock: options.clock,
    env: { HERALD_PUBLIC_URL: url, HERALD_LOGIN_RATE_PER_MINUTE: '100000', ...options.env },
  })
  herald.app.listen({ port, hostname: '127.0.0.1' })
  if (options.workers)
    workers.push(
      startSending(herald.ctx, sendDeps),
      createImportWorker(herald.ctx).start(),
      startWebhookWorker(herald.ctx),
      createFlowWorker(herald.ctx).start(),
    )

  beforeAll(
    async () => {
      browser = await launchBrowser()
    },
    { timeout: CHROMIUM_INSTALL_TIMEOUT_MS },
  )

  const portal: Portal = {
    herald,
    url,
    get browser() {
      if (!browser) throw new Error('the browser is not running (use it inside a test)')
      return browser
    },
    async user(role, o = {}) {
      serial += 1
      const email = o.email ?? `${role}${serial}@portal.test`
      const password = o.password ?? `pw-${role}-${serial}-correct horse`
      const ctx = withActor(herald.ctx, systemActor('test'), 'test')
      const created = (await invoke(createUserVerb, ctx, { email, password, role, clients: o.clients })) as {
        id: string
      }
      return { id: created.id, email, password, role }
    },
    async contextFor(user, contextOptions) {
      const c = await newContext(portal.browser, url, contextOptions)
      const page = await c.newPage()
      await loginOk(page, user.email, user.password)
      await page.close()
      return c
    },
    contextAs(role) {
      let context = contexts.get(role)
      if (!context) {
        context = (async () => {
          const user = await portal.user(role)
          users.set(role, user)
          return portal.contextFor(user)
        })()
        contexts.set(role, context)
      }
      return context
    },
    async pageAs(role) {
      return (await portal.contextAs(role)).newPage()
    },
    // Closed with the browser in afterAll.
    anonymous: () => newContext(portal.browser, url),
    userOf: (role) => users.get(role),
  }
  return portal
}

/**
 * Fills and submits the login form at /admin/login (or at the page's current login form) and
 * waits for the answer's page to load, whatever it is: the page asked for after a success, the
 * form again with a `role="alert"` message after a failure.
 */
export async function login(
  page: Page,
  email: string,
  password: string,
  path = '/admin/login',
): Promise<void> {
  if (!new URL(page.url(), 'http://x').pathname.startsWith('/admin/login')) await page.goto(path)
  const form = page.locator('form:has(input[name="password"])')
  await form.locator('input[name="email"]').fill(email)
  await form.locator('input[name="password"]').fill(password)
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    form.locator('button[type="submit"], input[type="submit"]').first().click(),
  ])
}

/** Logs in and fails, naming the URL and the alert shown, unless the portal let the user in. */
export async function loginOk(page: Page, email: string, password: string, path?: string): Promise<void> {
  await login(page, email, password, path)
  if (new URL(page.url()).pathname.startsWith('/admin/login')) {
    const alert = await page
      .locator('[role="alert"]')
      .allTextContents()
      .catch(() => [])
    throw new Error(
      `login as ${email} failed: still at ${page.url()} (${alert.join(' ').trim() || 'no alert'})`,
    )
  }
}

/** The text of the page's `role="alert"` elements (flash and error messages). */
export async function alertText(page: Page): Promise<string> {
  return (await page.locator('[role="alert"]').allTextContents()).join(' ').replace(/\s+/g, ' ').trim()
}
