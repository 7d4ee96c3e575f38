import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { flowQueue } from '../../db/flow-queue'
import { type ContactRow, contacts, webhookDeliveries, webhooks } from '../../db/schema'
import { newId, toPrefixedId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { recordEvent } from '../events/record'
import { addMembers, removeMembers } from '../lists/membership'
import { contactVariables } from '../templates/variables'
import type { Flow } from './definition'
import type { FlowNode } from './nodes'

// What the nodes that act on the world do, inside the step's transaction: a message in the one
// outbox, a signed webhook delivery queued, a contact updated, a list joined or left.

export function createNodeActions(app: AppContext) {
  const q = flowQueue(app.db)

  /** A send node's message in the outbox (its content is planned when it is sent); its id. */
  async function queueMessage(
    flow: Flow,
    node: FlowNode,
    contact: ContactRow,
    now: number,
    thread: readonly string[],
  ) {
    const channel = (node.channel as string) ?? 'email'
    const id = newId()
    await q.queueMessage(
      {
        id,
        clientId: flow.clientId,
        kind: flow.kind,
        flowId: flow.id,
        nodeId: node.id,
        contactId: contact.id,
        channel,
        to: channel === 'email' ? contact.email : contact.phone!,
        thread,
      },
      now,
    )
    return id
  }

  /** A webhook node: a signed POST queued for the webhook worker (retries, SSRF guard, log). */
  async function queueWebhook(
    flow: Flow,
    node: FlowNode,
    contact: ContactRow,
    now: number,
  ): Promise<string | null> {
    const webhookId = node.webhook_id as string
    const hook = (
      await app.db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(eq(webhooks.id, webhookId), eq(webhooks.clientId, flow.clientId)))
        .limit(1)
    )[0]
    if (!hook) return null
    const eventId = newId()
    const payload = JSON.stringify({
      id: toPrefixedId('event', eventId),
      type: 'journey.webhook',
      created_at: iso(now),
      data: {
        journey_id: toPrefixedId('journey', flow.id),
        node_id: node.id,
        contact_id: toPrefixedId('contact', contact.id),
        email: contact.email,
        contact: contactVariables(contact),
      },
    })
    const id = newId()
    await app.db.insert(webhookDeliveries).values({
      id,
      webhookId,
      clientId: flow.clientId,
      eventId,
      eventType: 'journey.webhook',
      test: false,
      payload,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })
    return id
  }

  async function updateContact(flow: Flow, node: FlowNode, contact: ContactRow, now: number) {
    const f = node.fields as Record<string, unknown>
    const set: Partial<ContactRow> = { updatedAt: now }
    if (f.first_name !== undefined) set.firstName = f.first_name as string | null
    if (f.last_name !== undefined) set.lastName = f.last_name as string | null
    if (f.company !== undefined) set.company = f.company as string | null
    if (f.timezone !== undefined) set.timezone = f.timezone as string | null
    if (f.status !== undefined) set.status = f.status as ContactRow['status']
    if (f.custom_fields !== undefined) {
      const merged = { ...contact.customFields }
      for (const [k, v] of Object.entries(f.custom_fields as Record<string, unknown>))
        if (v === null) delete merged[k]
        else merged[k] = v
      set.customFields = merged
    }
    await app.db.update(contacts).set(set).where(eq(contacts.id, contact.id))
    if (set.status === 'unsubscribed' && contact.status !== 'unsubscribed')
      await recordEvent(app, {
        clientId: flow.clientId,
        type: 'contact.unsubscribed',
        contactId: contact.id,
        journeyId: flow.id,
        occurredAt: now,
        data: {
          contact_id: toPrefixedId('contact', contact.id),
          email: contact.email,
          campaign_id: null,
          journey_id: toPrefixedId('journey', flow.id),
          message_id: null,
          source: 'journey',
          unsubscribed_at: iso(now),
        },
      })
    Object.assign(contact, set)
  }

  /** The nodes whose effect is all they do: update_contact, add_to_list, remove_from_list. */
  async function apply(flow: Flow, node: FlowNode, contact: ContactRow, now: number) {
    if (node.type === 'update_contact') await updateContact(flow, node, contact, now)
    else if (node.type === 'add_to_list') await addMembers(app, node.list_id as string, [contact.id], now)
    else if (node.type === 'remove_from_list')
      await removeMembers(app.db, node.list_id as string, [contact.id], now)
  }

  return { queueMessage, queueWebhook, apply }
}
