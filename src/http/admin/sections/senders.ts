import {
  createSenderVerb,
  deleteSenderVerb,
  getSenderVerb,
  listSendersVerb,
  updateSenderVerb,
} from '../../../services/senders/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace } from './links'

// Senders: the From addresses campaigns use. A sender is "verified" when its
// workspace has a verified domain (DKIM and SPF) for the address's domain or a parent of it —
// the page says so and links to the domain, or to the domains page to add one.

const PATH = '/admin/senders'

function form(
  req: PortalRequest,
  errors: FieldErrors,
  given: Record<string, unknown>,
  sender?: { id: string },
) {
  return page('pages/senders/form', sender ? 'Edit sender' : 'New sender', {
    errors,
    values: { from_email: '', from_name: '', reply_to: '', ...given },
    sender: sender ?? null,
    no_workspace: !sender && needsWorkspace(req),
  })
}

const fields = (req: PortalRequest) => ({
  from_email: text(req, 'from_email')?.trim() ?? '',
  from_name: text(req, 'from_name') ?? '',
  reply_to: text(req, 'reply_to')?.trim() ?? null,
})

export const sendersSection = defineSection({
  path: PATH,
  title: 'Senders',
  order: 55,
  group: 'setup',
  routes: [
    indexRoute(PATH, listSendersVerb, { template: 'pages/senders/index', title: 'Senders', rows: 'senders' }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => form(req, {}, {}) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(req, createSenderVerb, fields(req), {
          done: (s) =>
            redirect(PATH, {
              kind: 'success',
              message: s.verified
                ? `Added ${s.from_email}; its domain is verified.`
                : `Added ${s.from_email}. Verify its domain before sending real mail from it.`,
            }),
          retry: (errors) => form(req, errors, values(req)),
        }),
    },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req) => {
        const s = await invoke(getSenderVerb, req.ctx, { id: req.params.id })
        return form(req, {}, { ...s, reply_to: s.reply_to ?? '' }, s)
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) =>
        await submit(
          req,
          updateSenderVerb,
          { id: req.params.id, ...fields(req) },
          {
            done: (s) => redirect(PATH, { kind: 'success', message: `Saved ${s.from_email}.` }),
            retry: (errors) => form(req, errors, values(req), { id: req.params.id ?? '' }),
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getSenderVerb, req.ctx, { id: req.params.id }),
      confirm: (sender) => page('pages/senders/delete', `Delete ${sender.from_email}`, { sender }),
      act: async (req, sender) => await invoke(deleteSenderVerb, req.ctx, { id: sender.id }),
      done: (sender) => `Deleted the sender ${sender.from_email}.`,
    }),
  ],
})
