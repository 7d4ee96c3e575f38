import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { senders, templates } from '../../db/schema'
import type { FieldError } from '../../errors'
import { a } from '../../lib/article'
import { MAX_WAIT_MS } from '../../lib/duration'
import { parseId } from '../../lib/ids'
import { mapInOrder } from '../../lib/in-order'
import { delayMs, type SequenceStep } from '../flows/linear'
import { htmlEngine, textEngine } from '../templates/engine'
import { parseOrError } from '../templates/syntax'
import type { StepInput } from './inputs'

// A sequence's steps as stored: the channel made explicit, references
// as plain UUIDs, the delay as written. The checks that need the database or parsing run on
// every save and again at activation, each failure naming `steps[i].member`.

/** Steps from the API into their stored form (ids as UUIDs, channel and delay filled in). */
export async function normalizeSteps(db: Db, clientId: string, steps: StepInput[]): Promise<SequenceStep[]> {
  return await mapInOrder(steps, async (s) => {
    const templateId = s.template_id ? (parseId(s.template_id) ?? s.template_id) : null
    const templateChannel = templateId ? (await templateOf(db, clientId, templateId))?.channel : undefined
    return {
      channel: s.channel ?? templateChannel ?? 'email',
      template_id: templateId,
      subject: s.subject ?? null,
      body_html: s.body_html ?? null,
      body_text: s.body_text ?? null,
      delay: s.delay ?? 'PT0S',
    }
  })
}

const templateOf = async (db: Db, clientId: string, id: string) =>
  (
    await db
      .select()
      .from(templates)
      .where(and(eq(templates.id, id), eq(templates.clientId, clientId)))
      .limit(1)
  )[0]

/**
 * Every failing member of every step. The first email step must have a subject (its own or
 * its template's): later ones without one reply in its thread as `Re: …`.
 */
export async function checkSteps(
  db: Db,
  clientId: string,
  steps: SequenceStep[],
  activating: boolean,
): Promise<FieldError[]> {
  const errors: FieldError[] = []
  if (activating && steps.length === 0)
    errors.push({ field: 'steps', message: 'a sequence needs at least one step to be activated' })
  let threadStarted = false
  await mapInOrder(steps, async (s, i) => {
    const at = (member: string, message: string) => errors.push({ field: `steps[${i}].${member}`, message })
    const wait = delayMs(s.delay)
    if (wait === null)
      at(
        'delay',
        'must be an ISO 8601 duration in weeks, days, hours, minutes or seconds (P2D, PT4H, PT30S) or {days, hours, minutes}',
      )
    else if (wait > MAX_WAIT_MS) at('delay', 'must be at most 365 days')
    let subject = s.subject
    let hasBody = s.body_html !== null || s.body_text !== null
    let hasText = s.body_text !== null
    if (s.template_id !== null) {
      const t = await templateOf(db, clientId, s.template_id)
      if (!t) at('template_id', 'no such template in this client')
      else {
        if (t.channel !== s.channel)
          at('template_id', `is ${a(t.channel)} template; the step sends ${s.channel}`)
        subject = subject ?? t.subject
        hasBody = t.bodyHtml !== null || t.bodyText !== null
        hasText = t.bodyText !== null
      }
      if (s.body_html !== null)
        at('body_html', 'give template_id or inline content (body_html, body_text), not both')
      if (s.body_text !== null)
        at('body_text', 'give template_id or inline content (body_html, body_text), not both')
    } else {
      for (const [member, engine, source] of [
        ['subject', textEngine, s.subject],
        ['body_html', htmlEngine, s.body_html],
        ['body_text', textEngine, s.body_text],
      ] as const) {
        if (source === null) continue
        const parsed = parseOrError(engine, `steps[${i}].${member}`, source)
        if (!parsed.ok) errors.push(parsed.error)
      }
    }
    if (s.channel === 'email') {
      if (!threadStarted && !subject)
        at('subject', 'the first email step needs a subject (later ones without one reply as "Re: …")')
      if (s.template_id === null && !hasBody) at('body_html', 'an email step needs body_html or body_text')
      threadStarted = true
    } else {
      if (s.subject !== null) at('subject', `${a(s.channel)} step has no subject`)
      if (s.template_id === null ? s.body_text === null : !hasText)
        at('body_text', `${a(s.channel)} step needs body_text`)
    }
  })
  return errors
}

/** 422 member check of the sequence's sender: one of this client's senders. */
export async function checkSender(db: Db, clientId: string, senderId: string | null): Promise<FieldError[]> {
  if (senderId === null) return []
  const found = (
    await db
      .select({ id: senders.id })
      .from(senders)
      .where(and(eq(senders.id, senderId), eq(senders.clientId, clientId)))
      .limit(1)
  )[0]
  return found ? [] : [{ field: 'sender_id', message: 'no such sender in this client' }]
}
