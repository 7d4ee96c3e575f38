import type { Ctx } from '../../context'
import type { Upload } from '../../lib/upload'
import type { PortalRole } from '../../services/actors/actor'
import type { Flash, PortalSession } from '../../services/portal-auth/sessions'
import type { PortalIdentity } from '../../services/users/access'

// The shapes a portal page works with: what a handler receives and what it returns.

export interface Workspace {
  id: string
  name: string
}

export interface PortalRequest {
  readonly request: Request
  readonly url: URL
  /** Path parameters of the route (`:id`). */
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The submitted form of an unsafe request (urlencoded or multipart), else null. */
  readonly form: FormData | null
  /**
   * The file input named "file" of a multipart form, spooled to disk as it arrived (never held
   * in memory); removed once answered unless a verb moved it. Absent when none was chosen.
   */
  readonly upload?: Upload
  readonly session: PortalSession
  readonly user: PortalIdentity
  /** The workspace chosen in the header (null = every client, for owners and admins). */
  readonly workspace: Workspace | null
  readonly workspaces: readonly Workspace[]
  /** The verb context: the signed-in user as actor, acting in the chosen workspace. */
  readonly ctx: Ctx
  /** An htmx request (HX-Request) that wants only the page's partial. */
  readonly partial: boolean
}

/** A page to render: views/<view>.liquid inside the layout (or alone for an htmx swap). */
export interface PageView {
  readonly kind: 'page'
  readonly view: string
  readonly title: string
  readonly data: Readonly<Record<string, unknown>>
  readonly status: number
  /** Render the view alone, without layout, nav or flash (a polled progress bar, a live count). */
  readonly fragment?: boolean
}

/** POST-redirect-GET: 303 to `to`, with a message shown once on the next page. */
export interface Redirect {
  readonly kind: 'redirect'
  readonly to: string
  readonly flash?: Flash
}

export type PortalResult = PageView | Redirect | Response

export type Handler = (req: PortalRequest) => PortalResult | Promise<PortalResult>

export interface PortalRoute {
  readonly method: 'GET' | 'POST'
  /** `/admin/api-keys/:id/revoke`. */
  readonly path: string
  readonly handler: Handler
}

/** The nav's groups, by what people do there, in the order the nav shows them. */
export const NAV_GROUPS = {
  audience: 'Audience',
  messaging: 'Messaging',
  activity: 'Activity',
  insights: 'Insights',
  setup: 'Setup',
  admin: 'Admin',
} as const

export type NavGroup = keyof typeof NAV_GROUPS

interface SectionBase {
  /** The nav link, and the prefix that marks it current. */
  readonly path: string
  readonly title: string
  /** Position in the nav (lower first, within its group). */
  readonly order: number
  /**
   * The roles whose nav shows this section (default: every role). Only what the nav lists: the
   * verbs enforce the roles whatever the nav shows.
   */
  readonly roles?: readonly PortalRole[]
  readonly routes: readonly PortalRoute[]
}

/** One portal section: a nav entry and its routes. Registered in ./sections/index.ts. */
export type Section = SectionBase &
  (
    | {
        /** Listed in the nav (the default), under this group. */
        readonly nav?: true
        readonly group: NavGroup
      }
    | {
        /** False for pages reached otherwise (the account page from the user menu). */
        readonly nav: false
        readonly group?: undefined
      }
  )

export const page = (
  view: string,
  title: string,
  data: Record<string, unknown> = {},
  status = 200,
): PageView => ({ kind: 'page', view, title, data, status })

/** A piece of a page for an htmx swap (polling, live estimates): the view alone, no flash taken. */
export const fragment = (view: string, data: Record<string, unknown> = {}, status = 200): PageView => ({
  kind: 'page',
  view,
  title: '',
  data,
  status,
  fragment: true,
})

export const redirect = (to: string, flash?: Flash): Redirect => ({ kind: 'redirect', to, flash })

export const defineSection = (section: Section): Section => section
