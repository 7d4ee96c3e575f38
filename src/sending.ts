import type { SendDeps } from './queue/deps'
import { createCampaignSource } from './services/campaigns/send-source'
import { OUTBOX_RULES } from './services/campaigns/states'
import { saveWarmupCount, warmupCap, warmupFor, warmupSentOn } from './services/deliverability/warmup'
import { dkimForSender } from './services/domains/dkim'
import { createFlowSource } from './services/flows/send-source'
import { recordDeliveredEvent } from './services/messages/activity'
import { createFeedback } from './services/messages/feedback'
import { createTransactionalSource } from './services/messages/send-source'
import { effectiveProfile } from './services/sending-profiles/effective'
import { footerOf } from './services/sending-profiles/footer'
import { createSuppressedAmong } from './services/suppressions/check'
import { SEND_BUDGET_MS } from './services/templates/render'
import { sendRenderer } from './services/templates/render-pool'
import { clientVariables, contactVariables } from './services/templates/variables'
import { trackingKeyOf } from './services/tracking/resolve'

// The send path's wiring: the queue (src/queue) moves messages and imports only types from the
// domain; the domain's sources and rules are handed to it here. The server (cli/serve.ts) and
// the tests start the send worker with this object.

export const sendDeps: SendDeps = {
  // In the order their lanes are claimed.
  sources: [
    createCampaignSource,
    (app, _outbox, planner) => createFlowSource(app, planner),
    createTransactionalSource,
  ],
  outboxRules: OUTBOX_RULES,
  trackingKey: trackingKeyOf,
  feedback: createFeedback,
  sendingProfile: effectiveProfile,
  dkimForSender,
  warmupFor,
  warmupCap,
  warmupSentOn,
  saveWarmupCount,
  clientVariables: async (app, client) => clientVariables(client, await footerOf(app.db, client.id)),
  contactVariables,
  suppressedAmong: createSuppressedAmong,
  renderer: sendRenderer,
  sendBudgetMs: SEND_BUDGET_MS,
  recordDelivered: recordDeliveredEvent,
}
