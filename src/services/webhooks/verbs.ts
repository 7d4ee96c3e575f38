import { defineVerb } from '../verbs/define'
import { attemptTest, listDeliveries, recordTest, retryDelivery } from './deliveries'
import {
  CreateWebhookInput,
  DeliveryRef,
  FilterWebhooksInput,
  ListDeliveriesInput,
  ListWebhooksInput,
  TestWebhookInput,
  UpdateWebhookInput,
  WebhookRef,
} from './inputs'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  updateWebhook,
  webhookUrlProblem,
} from './records'
import { revealSecret, rotateSecret } from './secret'

export const listWebhooksVerb = defineVerb({
  name: 'webhooks.list',
  scope: 'any',
  input: ListWebhooksInput,
  mutates: false,
  run: async (ctx, input) => await listWebhooks(ctx, input),
})

export const filterWebhooksVerb = defineVerb({
  name: 'webhooks.list-filtered',
  scope: 'any',
  input: FilterWebhooksInput,
  mutates: false,
  run: async (ctx, input) => await listWebhooks(ctx, input),
})

export const createWebhookVerb = defineVerb({
  name: 'webhooks.create',
  scope: 'any',
  input: CreateWebhookInput,
  mutates: true,
  secrets: ['secret'],
  // The URL's host is looked up outside the transaction; run reports its problem with the others.
  prepare: (ctx, { url }) => webhookUrlProblem(ctx, url),
  run: async (ctx, { client_id, ...fields }, urlProblem) =>
    await createWebhook(ctx, fields, client_id, urlProblem),
})

export const getWebhookVerb = defineVerb({
  name: 'webhooks.get',
  scope: 'any',
  input: WebhookRef,
  mutates: false,
  run: async (ctx, { id }) => await getWebhook(ctx, id),
})

export const updateWebhookVerb = defineVerb({
  name: 'webhooks.update',
  scope: 'any',
  input: UpdateWebhookInput,
  mutates: true,
  prepare: (ctx, { url }) => webhookUrlProblem(ctx, url),
  run: async (ctx, { id, ...patch }, urlProblem) => await updateWebhook(ctx, id, patch, urlProblem),
})

export const deleteWebhookVerb = defineVerb({
  name: 'webhooks.delete',
  scope: 'any',
  input: WebhookRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteWebhook(ctx, id),
})

export const testWebhookVerb = defineVerb({
  name: 'webhooks.test',
  scope: 'any',
  input: TestWebhookInput,
  mutates: true,
  // The HTTP attempt runs outside the transaction; the delivery and its log are written in it.
  prepare: async (ctx, { id, event }) => await attemptTest(ctx, id, event),
  run: async (ctx, _input, attempt) => await recordTest(ctx, attempt),
})

// Rotating answers the new secret (and the old one keeps signing for a day): as revealing it, admin:*.
export const rotateWebhookSecretVerb = defineVerb({
  name: 'webhooks.rotate-secret',
  scope: 'admin:*',
  input: WebhookRef,
  mutates: true,
  secrets: ['secret'],
  run: async (ctx, { id }) => await rotateSecret(ctx, id),
})

export const getWebhookSecretVerb = defineVerb({
  name: 'webhooks.reveal-secret',
  scope: 'admin:*',
  input: WebhookRef,
  mutates: false,
  run: async (ctx, { id }) => await revealSecret(ctx, id),
})

export const listWebhookDeliveriesVerb = defineVerb({
  name: 'webhooks.list-deliveries',
  scope: 'any',
  input: ListDeliveriesInput,
  mutates: false,
  run: async (ctx, { id, ...page }) => await listDeliveries(ctx, id, page),
})

export const retryWebhookDeliveryVerb = defineVerb({
  name: 'webhooks.retry-delivery',
  scope: 'any',
  input: DeliveryRef,
  mutates: true,
  run: async (ctx, { id, delivery_id }) => await retryDelivery(ctx, id, delivery_id),
})
