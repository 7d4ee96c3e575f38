import { type NodeSpec, nextOf } from './spec'

/** A signed POST to one of the client's webhooks (journey.webhook), delivered with retries. */
export const webhook: NodeSpec = {
  members: ['webhook_id', 'next'],
  check: (c) => void c.ref('webhook_id', 'webhook', c.refs.webhook, true),
  async step(s, node) {
    s.count(node)
    const deliveryId = await s.act.queueWebhook(node)
    s.history(
      deliveryId ? { node: node.id, delivery_id: deliveryId } : { node: node.id, skipped: 'webhook_gone' },
      node.id,
    )
    return nextOf(node)
  },
}
