import { ServiceError } from '../../../errors'
import { SEQUENCE_STATUSES } from '../../../lib/enums'
import { listListsVerb } from '../../../services/lists/verbs'
import { listSegmentsVerb } from '../../../services/segments/verbs'
import { stepsEditable } from '../../../services/sequences/lifecycle'
import {
  activateSequenceVerb,
  archiveSequenceVerb,
  createSequenceVerb,
  enrollSequenceVerb,
  getSequenceVerb,
  listSequenceEnrollmentsVerb,
  listSequencesVerb,
  pauseSequenceVerb,
  updateSequenceVerb,
} from '../../../services/sequences/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { fieldErrorsOf, list, refusalStatus, text } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace, nextPageUrl, queryValue } from './links'

// Sequences: the list; a sequence's page with its steps and per-step stats,
// activate / pause / archive, enrollment from a list or segment, and each contact's run; one
// form for create and edit (steps as JSON, settings as fields). Every action is a sequences.*
// verb; a 422 lists each failing member (`steps[1].body_text`) above the form.

const PATH = '/admin/sequences'
type Sequence = Awaited<ReturnType<typeof getSequenceVerb.run>>
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const EXAMPLE_STEPS = JSON.stringify(
  [
    {
      channel: 'email',
      subject: 'Quick question, {{ contact.first_name }}',
      body_text: 'Hi …',
      delay: 'PT0S',
    },
    { channel: 'email', body_text: 'Following up on my note.', delay: 'P2D' },
  ],
  null,
  2,
)

interface FormValues {
  name: string
  steps: string
  stop_on_reply: boolean
  days: number[]
  start: string
  end: string
  daily_limit: string
}

const valuesOf = (s: Sequence): FormValues => ({
  name: s.name,
  steps: JSON.stringify(s.steps, null, 2),
  stop_on_reply: s.settings.stop_on_reply,
  days: s.settings.sending_window?.days ?? [],
  start: s.settings.sending_window?.start ?? '09:00',
  end: s.settings.sending_window?.end ?? '17:00',
  daily_limit: s.settings.daily_limit === null ? '' : String(s.settings.daily_limit),
})

const submitted = (req: PortalRequest): FormValues => ({
  name: text(req, 'name') ?? '',
  steps: text(req, 'steps') ?? '',
  stop_on_reply: text(req, 'stop_on_reply') === 'on',
  days: list(req, 'days').map(Number),
  start: text(req, 'start') ?? '09:00',
  end: text(req, 'end') ?? '17:00',
  daily_limit: text(req, 'daily_limit') ?? '',
})

function formPage(
  req: PortalRequest,
  v: FormValues,
  errors: { byMember: Record<string, string>; lines: string[] },
  sequence: Sequence | null,
  status = 200,
) {
  return page(
    'pages/sequences/form',
    sequence ? `Edit ${sequence.name}` : 'New sequence',
    {
      sequence,
      values: v,
      days: DAYS.map((label, i) => ({ value: i + 1, label, checked: v.days.includes(i + 1) })),
      errors: errors.byMember,
      error_lines: errors.lines,
      edit_steps: !sequence || stepsEditable(sequence.status),
      no_workspace: !sequence && needsWorkspace(req),
    },
    status,
  )
}

/** The verb's input from the form; a steps box that is not JSON is the form's own 422. */
function inputOf(v: FormValues, withSteps: boolean): { input?: Record<string, unknown>; error?: string } {
  let steps: unknown
  if (withSteps)
    try {
      steps = v.steps.trim() === '' ? [] : JSON.parse(v.steps)
    } catch (err) {
      return { error: `is not valid JSON: ${(err as Error).message}` }
    }
  const limit = v.daily_limit.trim()
  return {
    input: {
      name: v.name,
      ...(withSteps ? { steps } : {}),
      settings: {
        stop_on_reply: v.stop_on_reply,
        sending_window: v.days.length ? { days: v.days, start: v.start, end: v.end } : null,
        daily_limit: limit === '' ? null : /^\d+$/.test(limit) ? Number(limit) : limit,
      },
    },
  }
}

async function save(req: PortalRequest, sequence: Sequence | null) {
  const v = submitted(req)
  const withSteps = !sequence || stepsEditable(sequence.status)
  const { input, error } = inputOf(v, withSteps)
  if (!input)
    return formPage(
      req,
      v,
      { byMember: { steps: error!, _summary: 'The steps need attention.' }, lines: [] },
      sequence,
      422,
    )
  try {
    const s = sequence
      ? await invoke(updateSequenceVerb, req.ctx, { id: sequence.id, ...input })
      : await invoke(createSequenceVerb, req.ctx, input)
    return redirect(`${PATH}/${s.id}`, {
      kind: 'success',
      message: sequence ? 'Saved.' : `Created the sequence “${s.name}” (a draft).`,
    })
  } catch (err) {
    const status = refusalStatus(err)
    if (!status) throw err
    const e = err as ServiceError
    const lines = Array.isArray(e.details)
      ? (e.details as { field: string; message: string }[]).map((d) => `${d.field}: ${d.message}`)
      : []
    return formPage(req, v, { byMember: fieldErrorsOf(e), lines }, sequence, status)
  }
}

async function sequencePage(req: PortalRequest) {
  const id = req.params.id!
  const s = await invoke(getSequenceVerb, req.ctx, { id })
  const [runs, lists, segments] = await Promise.all([
    await invoke(listSequenceEnrollmentsVerb, req.ctx, { id, limit: 50, cursor: queryValue(req, 'cursor') }),
    s.status === 'active' ? invoke(listListsVerb, req.ctx, { limit: 200 }).then((r) => r.data) : [],
    s.status === 'active' ? invoke(listSegmentsVerb, req.ctx, { limit: 200 }).then((r) => r.data) : [],
  ])
  const steps = (s.steps as Record<string, unknown>[]).map((step, i) => ({
    index: i + 1,
    channel: step.channel,
    subject:
      step.subject ??
      (step.template_id ? 'the template’s' : i > 0 && step.channel === 'email' ? 'Re: (the thread)' : ''),
    template_id: step.template_id,
    delay: typeof step.delay === 'string' ? step.delay : JSON.stringify(step.delay),
    stats: s.stats[i],
  }))
  const w = s.settings.sending_window
  return page('pages/sequences/show', s.name, {
    sequence: s,
    steps,
    window: w
      ? `${w.days.map((d) => DAYS[d - 1]).join(', ')} ${w.start}–${w.end} (contact’s time zone, else the client’s, else UTC)`
      : '',
    runs: runs.data.map((r) => ({ ...r, current: r.current_step === null ? '—' : r.current_step + 1 })),
    runs_total: runs.pagination.total,
    next_url: nextPageUrl(`${PATH}/${s.id}`, {}, runs.pagination.next_cursor),
    lists,
    segments,
  })
}

export const sequencesSection = defineSection({
  path: PATH,
  title: 'Sequences',
  order: 39,
  group: 'messaging',
  routes: [
    indexRoute(PATH, listSequencesVerb, {
      template: 'pages/sequences/index',
      title: 'Sequences',
      rows: 'sequences',
      filter: { name: 'status', allowed: SEQUENCE_STATUSES },
    }),
    {
      method: 'GET',
      path: `${PATH}/new`,
      handler: (req) =>
        formPage(
          req,
          {
            name: '',
            steps: EXAMPLE_STEPS,
            stop_on_reply: true,
            days: [],
            start: '09:00',
            end: '17:00',
            daily_limit: '',
          },
          { byMember: {}, lines: [] },
          null,
        ),
    },
    { method: 'POST', path: PATH, handler: async (req) => await save(req, null) },
    { method: 'GET', path: `${PATH}/:id`, handler: async (req) => await sequencePage(req) },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req) => {
        const s = await invoke(getSequenceVerb, req.ctx, { id: req.params.id! })
        return formPage(req, valuesOf(s), { byMember: {}, lines: [] }, s)
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/edit`,
      handler: async (req) => await save(req, await invoke(getSequenceVerb, req.ctx, { id: req.params.id! })),
    },
    ...(['activate', 'pause'] as const).map((action) => ({
      method: 'POST' as const,
      path: `${PATH}/:id/${action}`,
      handler: async (req: PortalRequest) => {
        const id = req.params.id!
        try {
          await invoke(action === 'activate' ? activateSequenceVerb : pauseSequenceVerb, req.ctx, { id })
        } catch (err) {
          if (!(err instanceof ServiceError) || !refusalStatus(err)) throw err
          const why = Array.isArray(err.details)
            ? (err.details as { field: string; message: string }[])
                .map((d) => `${d.field}: ${d.message}`)
                .join('; ')
            : err.message
          return redirect(`${PATH}/${id}`, { kind: 'error', message: `Not ${action}d: ${why}` })
        }
        return redirect(`${PATH}/${id}`, {
          kind: 'success',
          message:
            action === 'activate'
              ? 'The sequence is active.'
              : 'The sequence is paused: no step runs until it is activated again.',
        })
      },
    })),
    {
      method: 'POST',
      path: `${PATH}/:id/enroll`,
      handler: async (req) => {
        const id = req.params.id!
        const listId = text(req, 'list_id')
        const segmentId = text(req, 'segment_id')
        try {
          const r = await invoke(enrollSequenceVerb, req.ctx, {
            id,
            ...(listId ? { list_id: listId } : {}),
            ...(segmentId ? { segment_id: segmentId } : {}),
          })
          return redirect(`${PATH}/${id}`, {
            kind: 'success',
            message: `Enrolled ${r.enrolled}; skipped ${r.skipped} (already in it, or not subscribed).`,
          })
        } catch (err) {
          if (!(err instanceof ServiceError) || !refusalStatus(err)) throw err
          const why = Array.isArray(err.details)
            ? (err.details as { field: string; message: string }[])
                .map((d) => `${d.field === 'contact_ids' ? 'audience' : d.field}: ${d.message}`)
                .join('; ')
            : err.message
          return redirect(`${PATH}/${id}`, { kind: 'error', message: `Nobody enrolled: ${why}` })
        }
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/archive`,
      handler: async (req) =>
        page('pages/sequences/archive', 'Archive sequence', {
          sequence: await invoke(getSequenceVerb, req.ctx, { id: req.params.id! }),
        }),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/archive`,
      handler: async (req) => {
        const s = await invoke(archiveSequenceVerb, req.ctx, { id: req.params.id! })
        return redirect(`${PATH}/${s.id}`, { kind: 'success', message: 'Archived: every run has ended.' })
      },
    },
  ],
})
