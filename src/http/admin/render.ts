import type { PortalRole } from '../../services/actors/actor'
import type { Flash } from '../../services/portal-auth/sessions'
import type { AlertBanner } from './alert-banner'
import { assetUrl } from './assets'
import { maskToken } from './csrf'
import { createEngine } from './engine'
import { NAV_GROUPS, type NavGroup, type PageView, type PortalRequest, type Section } from './types'

// Turns a handler's PageView into HTML: the page template inside the layout, or — for an htmx
// swap (HX-Request) — the page alone plus the pieces outside <main> that change with it (the
// title, the nav's current entry out of band, the flash message).

export interface NavEntry {
  path: string
  title: string
  group: NavGroup
  roles?: readonly PortalRole[]
}

export interface Chrome {
  /** The signed-in request; null for the sign-in page and errors before a session exists. */
  req: PortalRequest | null
  csrf: string
  flash: Flash | null
  path: string
  /** Open deliverability alerts shown above every page (./alert-banner.ts); null = none. */
  banner?: AlertBanner | null
}

const HTML = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', vary: 'HX-Request' }

export function createRenderer(sections: readonly Section[]) {
  const engine = createEngine()
  const nav: NavEntry[] = sections
    .flatMap((s) =>
      s.nav === false
        ? []
        : [{ path: s.path, title: s.title, group: s.group, roles: s.roles, order: s.order }],
    )
    .sort((a, b) => a.order - b.order)
    .map(({ path, title, group, roles }) => ({ path, title, group, roles }))
  const assets = {
    htmx: assetUrl('htmx.min.js'),
    pico: assetUrl('pico.min.css'),
    app: assetUrl('app.js'),
    css: assetUrl('app.css'),
  }

  /**
   * The entries the user's role sees, in their groups (a group with none left is not shown); the
   * one whose path is the longest prefix of the current path is current.
   */
  function navFor(path: string, role: PortalRole | null) {
    const visible = nav.filter((n) => !n.roles || (role !== null && n.roles.includes(role)))
    const current = visible
      .filter((n) => path === n.path || (n.path !== '/admin' && path.startsWith(`${n.path}/`)))
      .sort((a, b) => b.path.length - a.path.length)[0]
    return Object.entries(NAV_GROUPS)
      .map(([id, title]) => ({
        id,
        title,
        entries: visible
          .filter((n) => n.group === id)
          .map(({ path, title }) => ({ path, title, current: path === current?.path })),
      }))
      .filter((g) => g.entries.length > 0)
  }

  function globals(view: PageView, chrome: Chrome) {
    const req = chrome.req
    return {
      ...view.data,
      title: view.title,
      // Masked afresh for every answer (./csrf.ts): the same token never repeats in a page.
      csrf: chrome.csrf ? maskToken(chrome.csrf) : '',
      flash: chrome.flash,
      banner: chrome.banner ?? null,
      path: chrome.path,
      assets,
      nav: req ? navFor(chrome.path, req.user.role) : [],
      timezone: req?.user.timezone ?? 'UTC',
      user: req ? { email: req.user.email, role: req.user.role } : null,
      workspace: req?.workspace ?? null,
      workspaces: req?.workspaces ?? [],
      platform: req ? req.user.role === 'owner' || req.user.role === 'admin' : false,
    }
  }

  // Synchronous rendering: every template is in memory and every filter is synchronous, while
  // liquidjs's async mode (a promise per tag and output) made a 50-row table cost ~3x as much
  // (GET /admin/contacts p50 12.8 → 3.5 ms in process, test/bench/portal.ts).
  async function html(view: PageView, chrome: Chrome, partial: boolean): Promise<string> {
    const scope = globals(view, chrome)
    const content = engine.renderFileSync(view.view, scope)
    if (view.fragment) return content
    if (partial) return engine.renderFileSync('partials/swap', { ...scope, content })
    return engine.renderFileSync(chrome.req ? 'layouts/portal' : 'layouts/bare', { ...scope, content })
  }

  return {
    async page(view: PageView, chrome: Chrome, partial: boolean, headers: Record<string, string> = {}) {
      return new Response(await html(view, chrome, partial), {
        status: view.status,
        headers: { ...HTML, ...headers },
      })
    },
    /** One named partial alone (a polled progress bar, a live count). */
    async fragment(name: string, data: Record<string, unknown>, chrome: Chrome, status = 200) {
      const scope = globals({ kind: 'page', view: name, title: '', data, status }, chrome)
      return new Response(engine.renderFileSync(name, scope), { status, headers: HTML })
    },
    nav,
  }
}

export type Renderer = ReturnType<typeof createRenderer>
