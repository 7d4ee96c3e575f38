import { EVENT_TYPES } from '../../../services/events/record'
import { authorize, invoke } from '../../../services/verbs/invoke'
import {
  createWebhookVerb,
  deleteWebhookVerb,
  getWebhookSecretVerb,
  getWebhookVerb,
  listWebhookDeliveriesVerb,
  listWebhooksVerb,
  retryWebhookDeliveryVerb,
  rotateWebhookSecretVerb,
  testWebhookVerb,
  updateWebhookVerb,
} from '../../../services/webhooks/verbs'
import { confirmedAction } from '../confirmed'
import { checkboxes, type FieldErrors, list, submit, text } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace, nextPageUrl, queryValue } from './links'

// Webhooks: endpoints, their delivery log (every attempt: status, duration, the
// start of the response), retries, a test send, the signing secret. The secret is shown on the
// answer to a POST only (creation, "reveal" after a confirmation, rotation) — never in a flash
// or a GET — and revealing or rotating it needs admin:* as the REST endpoints do (owners, admins).

const PATH = '/admin/webhooks'

function newForm(
  req: PortalRequest,
  errors: FieldErrors = {},
  given: { url?: string; events?: string[] } = {},
) {
  return page('pages/webhooks/new', 'New webhook', {
    errors,
    values: { url: given.url ?? '' },
    events: checkboxes(EVENT_TYPES, given.events),
    no_workspace: needsWorkspace(req),
  })
}

async function showPage(req: PortalRequest, testErrors: FieldErrors = {}, status = 200) {
  const id = req.params.id ?? ''
  const hook = await invoke(getWebhookVerb, req.ctx, { id })
  const deliveries = await invoke(listWebhookDeliveriesVerb, req.ctx, {
    id,
    limit: 20,
    cursor: queryValue(req, 'cursor'),
  })
  return page(
    'pages/webhooks/show',
    hook.url,
    {
      hook,
      deliveries: deliveries.data,
      total: deliveries.pagination.total,
      next_url: nextPageUrl(`${PATH}/${hook.id}`, {}, deliveries.pagination.next_cursor),
      events: EVENT_TYPES,
      errors: testErrors,
      can_reveal: req.user.role === 'owner' || req.user.role === 'admin',
    },
    status,
  )
}

export const webhooksSection = defineSection({
  path: PATH,
  title: 'Webhooks',
  order: 65,
  group: 'setup',
  routes: [
    indexRoute(PATH, listWebhooksVerb, {
      template: 'pages/webhooks/index',
      title: 'Webhooks',
      rows: 'hooks',
    }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        const given = { url: text(req, 'url')?.trim() ?? '', events: list(req, 'events') }
        return await submit(req, createWebhookVerb, given, {
          // The secret is in this answer only (no redirect: a flash would store it).
          done: (hook) =>
            page('pages/webhooks/secret', 'Webhook created', { hook, secret: hook.secret, created: true }),
          retry: (errors) => newForm(req, errors, given),
        })
      },
    },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await showPage(req) },
    {
      method: 'GET',
      path: `${PATH}/:id/secret`,
      handler: async (req) => {
        // The confirmation is for those who may confirm: a member gets the 403 here already.
        authorize(getWebhookSecretVerb, req.ctx.actor)
        const hook = await invoke(getWebhookVerb, req.ctx, { id: req.params.id })
        return page('pages/webhooks/reveal', 'Reveal the signing secret', { hook })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/secret`,
      handler: async (req) => {
        const hook = await invoke(getWebhookVerb, req.ctx, { id: req.params.id })
        const s = await invoke(getWebhookSecretVerb, req.ctx, { id: req.params.id })
        return page('pages/webhooks/secret', 'Signing secret', {
          hook,
          secret: s.secret,
          previous_secret: s.previous_secret,
          previous_secret_expires_at: s.previous_secret_expires_at,
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/rotate`,
      handler: async (req) => {
        authorize(rotateWebhookSecretVerb, req.ctx.actor)
        const hook = await invoke(getWebhookVerb, req.ctx, { id: req.params.id })
        return page('pages/webhooks/rotate', 'Rotate the signing secret', { hook })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/rotate`,
      handler: async (req) => {
        const hook = await invoke(getWebhookVerb, req.ctx, { id: req.params.id })
        const r = await invoke(rotateWebhookSecretVerb, req.ctx, { id: req.params.id })
        return page('pages/webhooks/secret', 'New signing secret', {
          hook,
          secret: r.secret,
          rotated: true,
          previous_secret_expires_at: r.previous_secret_expires_at,
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/test`,
      handler: async (req) => {
        const id = req.params.id ?? ''
        return await submit(
          req,
          testWebhookVerb,
          { id, event: text(req, 'event') ?? '' },
          {
            done: (r) =>
              redirect(`${PATH}/${id}`, {
                kind: r.delivered ? 'success' : 'error',
                message: r.delivered
                  ? `Test event delivered: HTTP ${r.status} in ${r.duration_ms} ms.`
                  : `The test event was not accepted: ${r.status !== null ? `HTTP ${r.status}` : (r.error ?? 'no answer')}. See the log below.`,
              }),
            retry: async (errors) => await showPage(req, errors),
          },
        )
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/active`,
      handler: async (req) => {
        const active = text(req, 'active') === 'true'
        const hook = await invoke(updateWebhookVerb, req.ctx, { id: req.params.id, active })
        return redirect(`${PATH}/${hook.id}`, {
          kind: 'success',
          message: active
            ? 'Enabled: pending deliveries are sent again.'
            : 'Disabled: no events are sent to it until you enable it.',
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/deliveries/:delivery_id/retry`,
      handler: async (req) => {
        await invoke(retryWebhookDeliveryVerb, req.ctx, {
          id: req.params.id,
          delivery_id: req.params.delivery_id,
        })
        return redirect(`${PATH}/${req.params.id}`, {
          kind: 'success',
          message: 'The delivery is due again: the webhook worker sends it now.',
        })
      },
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getWebhookVerb, req.ctx, { id: req.params.id }),
      confirm: (hook) => page('pages/webhooks/delete', 'Delete webhook', { hook }),
      act: async (req, hook) => await invoke(deleteWebhookVerb, req.ctx, { id: hook.id }),
      done: (hook) => `Deleted the webhook to ${hook.url}.`,
    }),
  ],
})
