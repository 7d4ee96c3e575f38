import {
  createClientVerb,
  getClientVerb,
  listClientsVerb,
  updateClientVerb,
} from '../../../services/clients/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { pageLinks, pageQuery } from './links'
import { platformCtx } from './platform'

// Clients (workspaces, DESIGN §5): the agency's customers. Creating, suspending and reactivating
// are for platform-wide credentials (the client verbs check): owners and admins, acting in every
// workspace here whatever the header has chosen.

const PATH = '/admin/clients'

function newForm(errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/clients/new', 'New client', { errors, values: { name: '', industry: '', ...given } })
}

export const clientsSection = defineSection({
  path: PATH,
  title: 'Clients',
  order: 100,
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
    { method: 'GET', path: `${PATH}/new`, handler: () => newForm() },
    {
      method: 'POST',
      path: PATH,
      handler: (req) =>
        submit(
          { ...req, ctx: platformCtx(req) },
          createClientVerb,
          { name: text(req, 'name') ?? '', industry: text(req, 'industry') },
          {
            done: (c) =>
              redirect(PATH, {
                kind: 'success',
                message: `Created the client ${c.name}. Choose it in the header to work in it.`,
              }),
            retry: (errors) => newForm(errors, values(req)),
          },
        ),
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
