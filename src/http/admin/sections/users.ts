import { listClientsVerb } from '../../../services/clients/verbs'
import {
  createUserVerb,
  deleteUserVerb,
  getUserVerb,
  listUsersVerb,
  resetUserPasswordVerb,
  updateUserVerb,
} from '../../../services/users/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, list, submit, text } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { pageLinks, pageQuery } from './links'
import { platformCtx } from './platform'

// Portal users, owner only (the users verbs check the role): the list, a new user
// with a role and, for a member, the clients it may work in; role and clients changed; a new
// password (typed, or generated and shown once on the POST's answer); deletion behind a
// confirmation page.

const PATH = '/admin/users'
const PORTAL_ROLES = ['owner', 'admin', 'member', 'viewer'] as const
const ROLE_HELP: Record<string, string> = {
  owner: 'everything, including users',
  admin: 'everything but users, in every workspace',
  member: 'campaigns and audiences in the chosen clients',
  viewer: 'reads only',
}

/** The clients a member may be given (the first 200: enough for one form). */
async function clientChoices(req: PortalRequest, chosen: readonly string[]) {
  const clients = await invoke(listClientsVerb, platformCtx(req), { limit: 200 })
  const set = new Set(chosen)
  return clients.data.map((c) => ({ id: c.id, name: c.name, checked: set.has(c.id) }))
}

const roles = (current: string) =>
  PORTAL_ROLES.map((r) => ({ name: r, help: ROLE_HELP[r] ?? '', checked: r === current }))

async function newForm(
  req: PortalRequest,
  errors: FieldErrors = {},
  given: { email?: string; role?: string; clients?: string[] } = {},
) {
  return page('pages/users/new', 'New user', {
    errors,
    values: { email: given.email ?? '' },
    roles: roles(given.role ?? 'member'),
    clients: await clientChoices(req, given.clients ?? []),
  })
}

async function editForm(
  req: PortalRequest,
  errors: FieldErrors = {},
  given?: { role: string; clients: string[] },
) {
  const user = await invoke(getUserVerb, platformCtx(req), { id: req.params.id })
  return page('pages/users/edit', `Edit ${user.email}`, {
    person: user,
    errors,
    roles: roles(given?.role ?? user.role),
    clients: await clientChoices(req, given?.clients ?? user.clients ?? []),
  })
}

export const usersSection = defineSection({
  path: PATH,
  title: 'Users',
  order: 105,
  group: 'admin',
  roles: ['owner'],
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const result = await invoke(listUsersVerb, platformCtx(req), pageQuery(req))
        const clients = await clientChoices(req, [])
        const names = new Map(clients.map((c) => [c.id, c.name]))
        return page('pages/users/index', 'Users', {
          users: result.data.map((u) => ({
            ...u,
            client_names: u.clients?.map((id) => names.get(id) ?? id) ?? null,
            me: u.id === req.user.id,
          })),
          ...pageLinks(PATH, result.pagination),
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: async (req) => await newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        const role = text(req, 'role') ?? ''
        const given = { email: text(req, 'email')?.trim() ?? '', role, clients: list(req, 'clients') }
        return await submit(
          { ...req, ctx: platformCtx(req) },
          createUserVerb,
          {
            ...given,
            password: text(req, 'password'),
            clients: role === 'member' ? given.clients : undefined,
          },
          {
            // A generated password is in this answer only (never in a flash).
            done: (u) =>
              u.password
                ? page('pages/users/password', 'User created', {
                    person: u,
                    password: u.password,
                    created: true,
                  })
                : redirect(PATH, { kind: 'success', message: `Created ${u.email} (${u.role}).` }),
            retry: async (errors) => await newForm(req, errors, given),
          },
        )
      },
    },
    { method: 'GET', path: `${PATH}/:id/edit`, handler: async (req) => await editForm(req) },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const role = text(req, 'role') ?? ''
        const clients = list(req, 'clients')
        return await submit(
          { ...req, ctx: platformCtx(req) },
          updateUserVerb,
          { id: req.params.id, role, clients: role === 'member' ? clients : undefined },
          {
            done: (u) => redirect(PATH, { kind: 'success', message: `Saved ${u.email} (${u.role}).` }),
            retry: async (errors) => await editForm(req, errors, { role, clients }),
          },
        )
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/password`,
      handler: async (req) => {
        const user = await invoke(getUserVerb, platformCtx(req), { id: req.params.id })
        return page('pages/users/reset', `Reset the password of ${user.email}`, { person: user, errors: {} })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/password`,
      handler: async (req) =>
        await submit(
          { ...req, ctx: platformCtx(req) },
          resetUserPasswordVerb,
          { id: req.params.id, password: text(req, 'password') },
          {
            done: (u) =>
              u.password
                ? page('pages/users/password', 'New password', { person: u, password: u.password })
                : redirect(PATH, {
                    kind: 'success',
                    message: `Set a new password for ${u.email}; their sessions ended.`,
                  }),
            retry: async (errors) => {
              const user = await invoke(getUserVerb, platformCtx(req), { id: req.params.id })
              return page('pages/users/reset', `Reset the password of ${user.email}`, {
                person: user,
                errors,
              })
            },
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getUserVerb, platformCtx(req), { id: req.params.id }),
      confirm: (user) => page('pages/users/delete', `Delete ${user.email}`, { person: user }),
      act: async (req, user) => await invoke(deleteUserVerb, platformCtx(req), { id: user.id }),
      done: (user) => `Deleted the user ${user.email}.`,
    }),
  ],
})
