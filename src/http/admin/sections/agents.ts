import {
  approveRegistrationVerb,
  denyRegistrationVerb,
  getRegistrationVerb,
  listRegistrationsVerb,
} from '../../../services/agents/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { checkboxes, type FieldErrors, list, submit, text } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute } from './links'

// Agent registrations waiting for an operator: an anonymous agent that called
// POST /agent/auth/register stays pending until approved here for one client with some or all
// of the scopes it asked for; then its claim mints the key. Owners and admins (admin:*).

const PATH = '/admin/agents'

type Registration = Awaited<ReturnType<typeof getRegistration>>
const getRegistration = async (req: PortalRequest) =>
  await invoke(getRegistrationVerb, req.ctx, { id: req.params.id })

/**
 * The operator decides, nothing is decided for them: no workspace is chosen in advance (not even
 * the one the agent asked for), and only read scopes start ticked (never a write scope, never admin:*).
 */
function reviewPage(req: PortalRequest, reg: Registration, errors: FieldErrors = {}) {
  const chosen = req.form ? text(req, 'client_id') : null
  const reads = reg.requested_scopes.filter((s) => s.endsWith(':read'))
  return page('pages/agents/review', `Review ${reg.client_name}`, {
    reg,
    errors,
    scopes: checkboxes(reg.requested_scopes, req.form ? list(req, 'scopes') : reads),
    clients: req.workspaces.map((w) => ({ ...w, selected: w.id === chosen })),
    none_chosen: !req.workspaces.some((w) => w.id === chosen),
    // Shown, not chosen: what the agent claims it is for is information, not a decision.
    asked: reg.client_id ? (req.workspaces.find((w) => w.id === reg.client_id)?.name ?? reg.client_id) : null,
  })
}

export const agentsSection = defineSection({
  path: PATH,
  title: 'Agents',
  order: 92,
  group: 'admin',
  roles: ['owner', 'admin'],
  routes: [
    indexRoute(PATH, listRegistrationsVerb, {
      template: 'pages/agents/index',
      title: 'Agent registrations',
      rows: 'registrations',
    }),
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => reviewPage(req, await getRegistration(req)),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/approve`,
      handler: async (req) => {
        const reg = await getRegistration(req)
        return await submit(
          req,
          approveRegistrationVerb,
          { id: reg.id, client_id: text(req, 'client_id') ?? '', scopes: list(req, 'scopes') },
          {
            done: (r) =>
              redirect(PATH, {
                kind: 'success',
                message: `Approved “${r.client_name}” with ${r.approved_scopes?.join(', ')}. Its next claim gets the key.`,
              }),
            retry: (errors) => reviewPage(req, reg, errors),
          },
        )
      },
    },
    ...confirmedAction({
      path: `${PATH}/:id/deny`,
      back: PATH,
      find: getRegistration,
      confirm: (reg) => page('pages/agents/deny', `Deny ${reg.client_name}`, { reg }),
      act: async (req, reg) => await invoke(denyRegistrationVerb, req.ctx, { id: reg.id }),
      done: (reg) => `Denied the registration of “${reg.client_name}”.`,
    }),
  ],
})
