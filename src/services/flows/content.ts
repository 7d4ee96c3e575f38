import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { templates } from '../../db/schema'
import type { CampaignChannel, FlowKind } from '../../lib/enums'
import type { RenderableTemplate } from '../templates/render'
import { type Flow, loadFlow } from './definition'
import type { FlowNode } from './nodes'

// What a flow's send node renders: its template now (the node's own subject, when set, wins) or
// its inline content. An outreach email without a subject replies in the run's thread: the
// subject of the flow's first email, as `Re: …`. The id and version key the render cache.

const RE = /^\s*re:\s*/i

/** A template of the flow's own client: a node naming another client's is never read. */
const ownTemplate = async (app: AppContext, clientId: string, id: string) =>
  (
    await app.db
      .select()
      .from(templates)
      .where(and(eq(templates.id, id), eq(templates.clientId, clientId)))
      .limit(1)
  )[0]

async function subjectOf(app: AppContext, clientId: string, node: FlowNode): Promise<string | null> {
  if (typeof node.subject === 'string' && node.subject) return node.subject
  if (typeof node.template_id !== 'string') return null
  return (await ownTemplate(app, clientId, node.template_id))?.subject ?? null
}

/** The subject a thread's replies carry: `Re: ` and the first email's subject (once). */
async function replySubject(app: AppContext, flow: Flow): Promise<string | null> {
  const first = flow.nodes.find((n) => n.type === 'send' && ((n.channel as string) ?? 'email') === 'email')
  const subject = first ? await subjectOf(app, flow.clientId, first) : null
  return subject === null ? null : `Re: ${subject.replace(RE, '')}`
}

export async function sendNodeContent(
  app: AppContext,
  kind: FlowKind,
  flowId: string,
  nodeId: string | null,
): Promise<{ flow: Flow; content: RenderableTemplate; channel: CampaignChannel; senderId: string | null }> {
  const flow = (await loadFlow(app.db, kind, flowId))?.flow
  if (!flow) throw new Error(`the ${kind} no longer exists`)
  const node = flow.nodes.find((n) => n.id === nodeId && n.type === 'send')
  if (!node) throw new Error(`the ${kind} has no send node ${nodeId}`)
  const channel = ((node.channel as string) ?? 'email') as CampaignChannel
  const own = typeof node.subject === 'string' && node.subject ? node.subject : null
  let content: RenderableTemplate
  if (typeof node.template_id === 'string') {
    const t = await ownTemplate(app, flow.clientId, node.template_id)
    if (!t) throw new Error('the template no longer exists')
    content = own
      ? {
          ...t,
          id: `${t.id}/flow/${flow.id}/${node.id}`,
          updatedAt: Math.max(t.updatedAt, flow.updatedAt),
          subject: own,
        }
      : t
  } else
    content = {
      id: `flow/${flow.id}/${node.id}`,
      updatedAt: flow.updatedAt,
      channel,
      subject: own,
      bodyHtml: (node.body_html as string | null) ?? null,
      bodyText: (node.body_text as string | null) ?? null,
    }
  if (channel === 'email' && !content.subject) {
    const subject = flow.options.outreach ? await replySubject(app, flow) : null
    if (!subject)
      throw new Error(
        flow.options.outreach
          ? 'the step has no subject and the sequence no email to reply to'
          : 'the template has no subject',
      )
    content = { ...content, id: `${content.id}/re/${flow.id}/${flow.updatedAt}`, subject }
  }
  if (channel !== 'email' && !content.bodyText) throw new Error(`a ${channel} message needs body_text`)
  const senderId = (node.sender_id as string | undefined) ?? flow.options.senderId
  return { flow, content, channel, senderId }
}
