import { changePasswordVerb, getAccountVerb, updateAccountVerb } from '../../../services/users/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text } from '../forms'
import { startSession } from '../session-cookie'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { ZONE_CHOICES } from '../zones'

// The signed-in user's own account: time zone (dates across the portal use it) and password.
// Reached from the user menu, not the section nav.

const PATH = '/admin/account'

async function accountPage(req: PortalRequest, errors: FieldErrors = {}, timezone?: string) {
  const account = await invoke(getAccountVerb, req.ctx, {})
  return page('pages/account/index', 'Your account', {
    account,
    errors,
    zones: ZONE_CHOICES,
    selected_zone: timezone ?? account.timezone,
  })
}

export const account = defineSection({
  path: PATH,
  title: 'Account',
  order: 1000,
  nav: false,
  routes: [
    { method: 'GET', path: PATH, handler: async (req) => await accountPage(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          updateAccountVerb,
          { timezone: text(req, 'timezone') ?? '' },
          {
            done: (a) => redirect(PATH, { kind: 'success', message: `Dates now show in ${a.timezone}.` }),
            retry: async (errors) => await accountPage(req, errors, text(req, 'timezone')),
          },
        ),
    },
    {
      method: 'POST',
      path: `${PATH}/password`,
      handler: async (req) =>
        await submit(
          req,
          changePasswordVerb,
          {
            current_password: text(req, 'current_password') ?? '',
            new_password: text(req, 'new_password') ?? '',
          },
          {
            // Every session of the user ended with the change; this browser gets a fresh one.
            done: async () => {
              const headers = new Headers({ location: PATH, 'cache-control': 'no-store' })
              headers.append(
                'set-cookie',
                await startSession(req.ctx, req.user.id, req.workspace?.id ?? null),
              )
              return new Response(null, { status: 303, headers })
            },
            retry: async (errors) => await accountPage(req, errors),
          },
        ),
    },
  ],
})
