import { a } from '../../../lib/article'
import { CAMPAIGN_CHANNELS } from '../../../lib/enums'
import { nextUtcDay, nextWindowAt } from '../../../lib/sending-window'
import { notOneOf } from '../../../lib/validate'
import { type NodeSpec, nextOf } from './spec'

/**
 * A message in the one outbox (sent by the send queue), or why not: a contact who is not
 * subscribed or an address that is suppressed is skipped (an outreach flow ends there), a closed
 * sending window or a reached daily limit waits, a text channel without a phone is skipped.
 */
export const send: NodeSpec = {
  members: ['channel', 'template_id', 'sender_id', 'next'],
  check(c) {
    const channel = c.node.channel ?? 'email'
    if (!(CAMPAIGN_CHANNELS as readonly unknown[]).includes(channel))
      c.err('channel', notOneOf(channel, CAMPAIGN_CHANNELS))
    const id = c.ref('template_id', 'template', (id) => c.refs.templateChannel(id) !== null, true)
    if (id && typeof channel === 'string') {
      const tc = c.refs.templateChannel(id)
      if (tc !== null && tc !== channel)
        c.err('template_id', `is ${a(tc)} template; this node sends ${channel}`)
    }
    if (channel !== 'email' && c.node.sender_id !== undefined) c.err('sender_id', 'applies to email only')
    c.ref('sender_id', 'sender', c.refs.sender, false)
  },
  async step(s, node) {
    const { flow, contact, now } = s
    const email = ((node.channel as string) ?? 'email') === 'email'
    if (contact.status !== 'subscribed' || (email && (await s.sending.suppressed(contact.email)))) {
      // Outreach never writes to a suppressed address: the run ends there.
      if (flow.options.outreach) return await s.end({ status: 'exited', reason: null })
      s.count(node)
      const skipped = contact.status !== 'subscribed' ? `contact_${contact.status}` : 'suppressed'
      s.history({ node: node.id, skipped }, node.id)
      return nextOf(node)
    }
    const window = flow.options.sendingWindow
    const open = window ? nextWindowAt(now, window, contact.timezone ?? s.clientZone) : now
    if (open > now) {
      await s.sending.deferred()
      return await s.park(node.id, open)
    }
    if (!email && !contact.phone) {
      s.count(node)
      s.history({ node: node.id, skipped: 'no_phone' }, node.id)
      return nextOf(node)
    }
    if (email && !(await s.sending.takeDaily())) {
      await s.sending.deferred()
      return await s.park(node.id, nextUtcDay(now))
    }
    s.count(node)
    const thread = email && flow.options.outreach ? await s.sending.thread(node) : null
    const id = await s.sending.queueMessage(node, thread ?? [])
    thread?.push(id)
    s.history(
      flow.options.outreach
        ? { node: node.id, message_id: id, channel: node.channel ?? 'email' }
        : { node: node.id, message_id: id },
      node.id,
    )
    return nextOf(node)
  },
}
