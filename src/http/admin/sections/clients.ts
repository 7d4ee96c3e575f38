import {
  createClientVerb,
  getClientVerb,
  listClientsVerb,
  updateClientVerb,
} from '../../../services/clients/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { ZONE_CHOICES } from '../zones'
import { pageLinks, pageQuery } from './links'
import { platformCtx } from './platform'

// Clients (workspaces): the agency's customers. Creating, suspending and reactivating
// are for platform-wide credentials (the client verbs check): owners and admins, acting in every
// workspace here whatever the header has chosen.

const PATH = '/admin/clients'

/** The create form, or the edit form of `client` (an id is enough to post back to it). */
function clientForm(
  errors: FieldErrors = {},
  given: Record<string, unknown> = {},
  client?: { id: string; name: string },
) {
  return page('pages/clients/form', client ? `Edit ${client.name}` : 'New client', {
    errors,
    values: { name: '', industry: '', timezone: '', ...given },
    client,
    // Suggestions only: the field is typed, so an unknown zone gets the verb's 422 on it.
    zones: ZONE_CHOICES,
  })
}

/** The form's members: an empty industry or time zone is none (null clears it on edit). */
const fields = (req: PortalRequest) => ({
  name: text(req, 'name') ?? '',
  industry: text(req, 'industry') ?? null,
  timezone: text(req, 'timezone') ?? null,
})

export const clientsSection = defineSection({
  path: PATH,
  title: 'Clients',
  order: 100,
  group: 'admin',
  roles: ['owner', 'admin'],
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const result = await invoke(listClientsVerb, platformCtx(req), pageQuery(req))
        return page('pages/clients/index', 'Clients', {
          clients: result.data,
          ...pageLinks(PATH, result.pagination),
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: () => clientForm() },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit({ ...req, ctx: platformCtx(req) }, createClientVerb, fields(req), {
          done: (c) =>
            redirect(PATH, {
              kind: 'success',
              message: `Created the client ${c.name}. Choose it in the header to work in it.`,
            }),
          retry: (errors) => clientForm(errors, values(req)),
        }),
    },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req: PortalRequest) => {
        const c = await invoke(getClientVerb, platformCtx(req), { id: req.params.id })
        return clientForm({}, { name: c.name, industry: c.industry ?? '', timezone: c.timezone ?? '' }, c)
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req: PortalRequest) => {
        const ctx = platformCtx(req)
        // Read first: an unknown id is the portal's 404 page, not a form.
        const current = await invoke(getClientVerb, ctx, { id: req.params.id })
        return await submit(
          { ...req, ctx },
          updateClientVerb,
          { id: current.id, ...fields(req) },
          {
            done: (c) =>
              redirect(PATH, {
                kind: 'success',
                message: `Saved ${c.name}${c.timezone ? ` (time zone ${c.timezone})` : ' (time zone UTC)'}.`,
              }),
            retry: (errors) => clientForm(errors, values(req), current),
          },
        )
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/status`,
      handler: async (req: PortalRequest) => {
        const client = await invoke(getClientVerb, platformCtx(req), { id: req.params.id })
        return page(
          'pages/clients/status',
          `${client.status === 'active' ? 'Suspend' : 'Reactivate'} ${client.name}`,
          {
            client,
          },
        )
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/status`,
      handler: async (req) => {
        const status = text(req, 'status') === 'suspended' ? 'suspended' : 'active'
        const c = await invoke(updateClientVerb, platformCtx(req), { id: req.params.id, status })
        return redirect(PATH, {
          kind: 'success',
          message:
            status === 'suspended'
              ? `Suspended ${c.name}: its sends stop and its API keys are refused until it is reactivated.`
              : `Reactivated ${c.name}.`,
        })
      },
    },
  ],
})
