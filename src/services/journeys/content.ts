import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { journeys, templates } from '../../db/schema'
import type { CampaignChannel } from '../../lib/enums'
import type { RenderableTemplate } from '../templates/render'
import type { JourneyNode } from './nodes'

/** What a journey's send node renders: its template now, its channel and sender. */
export function journeyNodeContent(app: AppContext, journeyId: string, nodeId: string | null) {
  const journey = app.db.select().from(journeys).where(eq(journeys.id, journeyId)).get()
  if (!journey) throw new Error('the journey no longer exists')
  const node = (journey.nodes as JourneyNode[]).find((n) => n.id === nodeId && n.type === 'send')
  if (!node) throw new Error(`the journey has no send node ${nodeId}`)
  const template = app.db
    .select()
    .from(templates)
    .where(and(eq(templates.id, node.template_id as string), eq(templates.clientId, journey.clientId)))
    .get()
  if (!template) throw new Error('the template no longer exists')
  const channel = ((node.channel as string) ?? 'email') as CampaignChannel
  const content: RenderableTemplate = template
  if (channel === 'email' && !template.subject) throw new Error('the template has no subject')
  if (channel !== 'email' && !template.bodyText) throw new Error(`a ${channel} message needs body_text`)
  return { journey, content, channel, senderId: (node.sender_id as string | undefined) ?? null }
}
