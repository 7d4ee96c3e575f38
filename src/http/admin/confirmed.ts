import type { ServiceError } from '../../errors'
import { fieldErrorsOf, refusalStatus } from './forms'
import type { PageView, PortalRequest, PortalRoute } from './types'
import { redirect } from './types'

// A destructive action behind a confirmation page of its own (delete, revoke): GET shows what is
// about to go, POST does it and goes back to the list with a flash. Two routes, so it works
// without JavaScript. The record is read again on POST, before the action, so the flash can name
// what was removed (the verb may answer with nothing) and a stale id is a 404, not a silent no-op.
// Every confirmation view renders `partials/form-error` above its form for the refusal.

export interface Confirmed<T> {
  /** The action's path, `/admin/lists/:id/delete`. */
  readonly path: string
  /** Where to go after: the section's list. */
  readonly back: string
  /** Reads the record the page is about. */
  readonly find: (req: PortalRequest) => Promise<T>
  /** The confirmation page. */
  readonly confirm: (record: T) => PageView
  /** Does it (invoke the delete/revoke verb). */
  readonly act: (req: PortalRequest, record: T) => Promise<unknown>
  /** The flash shown on the list afterwards. */
  readonly done: (record: T) => string
}

export function confirmedAction<T>(action: Confirmed<T>): PortalRoute[] {
  return [
    {
      method: 'GET',
      path: action.path,
      handler: async (req) => action.confirm(await action.find(req)),
    },
    {
      method: 'POST',
      path: action.path,
      handler: async (req) => {
        const record = await action.find(req)
        try {
          await action.act(req, record)
        } catch (err) {
          // A refusal (409 in use or wrong state, 422) is shown on the confirmation page itself,
          // above its button, with the verb's message and status; the rest go to the error pages.
          const status = refusalStatus(err)
          if (!status) throw err
          const view = action.confirm(record)
          return { ...view, status, data: { ...view.data, errors: fieldErrorsOf(err as ServiceError) } }
        }
        return redirect(action.back, { kind: 'success', message: action.done(record) })
      },
    },
  ]
}
