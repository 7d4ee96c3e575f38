import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type SequenceRow, sequences, templates } from '../../db/schema'
import type { CampaignChannel } from '../../lib/enums'
import type { RenderableTemplate } from '../templates/render'
import type { SequenceStep } from './steps'

// What a sequence step's message renders: its template now (its own subject, when set, wins)
// or its inline content. An email step without a subject replies in the run's thread: the
// subject of the sequence's first email, as `Re: …`. The id and version key the render cache.

const RE = /^\s*re:\s*/i

/** A template of the sequence's own client: a step stored naming another client's is never read. */
const ownTemplate = (clientId: string, id: string) =>
  and(eq(templates.id, id), eq(templates.clientId, clientId))

function subjectOf(app: AppContext, clientId: string, step: SequenceStep): string | null {
  if (step.subject) return step.subject
  if (!step.template_id) return null
  return (
    app.db
      .select({ s: templates.subject })
      .from(templates)
      .where(ownTemplate(clientId, step.template_id))
      .get()?.s ?? null
  )
}

/** The subject a thread's replies carry: `Re: ` and the first email step's subject (once). */
function replySubject(app: AppContext, clientId: string, steps: SequenceStep[]): string | null {
  const first = steps.find((s) => s.channel === 'email')
  const subject = first ? subjectOf(app, clientId, first) : null
  return subject === null ? null : `Re: ${subject.replace(RE, '')}`
}

export function sequenceStepContent(
  app: AppContext,
  sequenceId: string,
  stepIndex: number,
): { sequence: SequenceRow; step: SequenceStep; content: RenderableTemplate; channel: CampaignChannel } {
  const sequence = app.db.select().from(sequences).where(eq(sequences.id, sequenceId)).get()
  if (!sequence) throw new Error('the sequence no longer exists')
  const steps = sequence.steps as unknown as SequenceStep[]
  const step = steps[stepIndex]
  if (!step) throw new Error(`the sequence has no step ${stepIndex}`)
  const channel = step.channel as CampaignChannel
  let content: RenderableTemplate
  if (step.template_id) {
    const t = app.db.select().from(templates).where(ownTemplate(sequence.clientId, step.template_id)).get()
    if (!t) throw new Error('the template no longer exists')
    content = step.subject
      ? {
          ...t,
          id: `${t.id}/sequence/${sequence.id}/${stepIndex}`,
          updatedAt: Math.max(t.updatedAt, sequence.updatedAt),
          subject: step.subject,
        }
      : t
  } else
    content = {
      id: `sequence/${sequence.id}/${stepIndex}`,
      updatedAt: sequence.updatedAt,
      channel,
      subject: step.subject,
      bodyHtml: step.body_html,
      bodyText: step.body_text,
    }
  if (channel === 'email' && !content.subject) {
    const subject = replySubject(app, sequence.clientId, steps)
    if (!subject) throw new Error('the step has no subject and the sequence no email to reply to')
    content = { ...content, id: `${content.id}/re/${sequence.id}/${sequence.updatedAt}`, subject }
  }
  if (channel !== 'email' && !content.bodyText) throw new Error(`a ${channel} message needs body_text`)
  return { sequence, step, content, channel }
}
