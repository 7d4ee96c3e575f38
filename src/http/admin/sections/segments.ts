import { listCampaignsVerb } from '../../../services/campaigns/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import {
  createSegmentVerb,
  deleteSegmentVerb,
  estimateSegmentVerb,
  getSegmentVerb,
  listSegmentsVerb,
  segmentContactsVerb,
  updateSegmentVerb,
} from '../../../services/segments/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, refusalStatus } from '../forms'
import { defineSection, fragment, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace, nextPageUrl, queryValue } from './links'
import {
  applyAction,
  builderErrors,
  EVENT_CHOICES,
  emptyGroup,
  FIELD_CHOICES,
  isServiceError,
  modelFromForm,
  modelFromSegment,
  OPERATOR_LABELS,
  operatorsFor,
  type SegmentModel,
  segmentInput,
} from './segment-form'

// Segments: the list, and a rule builder for every field and operator — groups
// matched all/any, joined all/any, rules {field, operator, value}, list in/not_in and activity
// rules. Adding or removing a rule or group is a submit that re-renders the builder (no
// JavaScript needed; htmx swaps it in place), and while editing the estimated size is posted to
// a fragment route that sizes the unsaved rules through segments.estimate.

const PATH = '/admin/segments'

type Estimate = { estimated_size: number; sample: { id: string; email: string }[] } | null

/** The size of the builder's rules, or null while they are incomplete (the verb refuses them). */
async function estimate(
  req: PortalRequest,
  model: SegmentModel,
): Promise<{ result: Estimate; errors: FieldErrors }> {
  if (model.groups.length === 0) return { result: null, errors: {} }
  try {
    return { result: await invoke(estimateSegmentVerb, req.ctx, segmentInput(model)), errors: {} }
  } catch (err) {
    if (isServiceError(err) && err.code === 'VALIDATION_FAILED')
      return { result: null, errors: builderErrors(err) }
    throw err
  }
}

/** Why the rules cannot be sized yet, for the line where the size goes. */
const problemsOf = (errors: FieldErrors) =>
  Object.entries(errors)
    .filter(([k]) => k !== '_summary')
    .map(([, v]) => v)

async function builderPage(
  req: PortalRequest,
  model: SegmentModel,
  id: string | null,
  errors: FieldErrors = {},
  status = 200,
  sized?: Estimate,
  problems: string[] = [],
) {
  const [lists, campaigns] = await Promise.all([
    invoke(listListsVerb, req.ctx, { limit: 200 }).then((r) => r.data),
    invoke(listCampaignsVerb, req.ctx, { limit: 100 }).then((r) => r.data),
  ])
  const groups = model.groups.map((g, gi) => ({
    ...g,
    index: gi,
    error: errors[`g${gi}`],
    rules: g.rules.map((r, ri) => ({
      ...r,
      index: ri,
      prefix: `g${gi}.r${ri}`,
      id: `g${gi}-r${ri}`,
      error: errors[`g${gi}.r${ri}`],
      operators: operatorsFor(r.field).map((o) => ({ value: o, label: OPERATOR_LABELS[o] ?? o })),
      list_options: lists.map((l) => ({ id: l.id, name: l.name, selected: r.lists.includes(l.id) })),
    })),
  }))
  return page(
    'pages/segments/builder',
    id ? `Edit ${model.name || 'segment'}` : 'New segment',
    {
      id,
      model,
      groups,
      errors,
      fields: FIELD_CHOICES,
      events: EVENT_CHOICES,
      campaigns,
      estimate: sized ?? null,
      problems,
      no_workspace: !id && needsWorkspace(req),
    },
    status,
  )
}

/** A builder post: an edit action re-renders (with the new size); `save` creates or updates. */
async function builderPost(req: PortalRequest, id: string | null) {
  const model = modelFromForm(req)
  const action = String(req.form?.get('action') ?? 'refresh')
  if (applyAction(model, action)) {
    const sized = await estimate(req, model)
    return builderPage(req, model, id, {}, 200, sized.result, problemsOf(sized.errors))
  }
  try {
    const input = { name: model.name, ...segmentInput(model) }
    const saved = id
      ? await invoke(updateSegmentVerb, req.ctx, { id, ...input })
      : await invoke(createSegmentVerb, req.ctx, input)
    return redirect(`${PATH}/${saved.id}`, {
      kind: 'success',
      message: `Saved “${saved.name}”: about ${(saved.estimated_size ?? 0).toLocaleString('en-US')} contacts match.`,
    })
  } catch (err) {
    const status = refusalStatus(err)
    if (!status || !isServiceError(err)) throw err
    return builderPage(req, model, id, builderErrors(err), status)
  }
}

export const segmentsSection = defineSection({
  path: PATH,
  title: 'Segments',
  order: 25,
  group: 'audience',
  routes: [
    indexRoute(PATH, listSegmentsVerb, {
      template: 'pages/segments/index',
      title: 'Segments',
      rows: 'segments',
    }),
    {
      method: 'GET',
      path: `${PATH}/new`,
      handler: (req) => builderPage(req, { name: '', match: 'all', groups: [emptyGroup()] }, null),
    },
    { method: 'POST', path: PATH, handler: async (req) => await builderPost(req, null) },
    {
      // The live size while editing: the builder's fields as they are now, never saved.
      method: 'POST',
      path: `${PATH}/estimate`,
      handler: async (req) => {
        const sized = await estimate(req, modelFromForm(req))
        return fragment('pages/segments/estimate', {
          estimate: sized.result,
          problems: problemsOf(sized.errors),
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const s = await invoke(getSegmentVerb, req.ctx, { id: req.params.id })
        const cursor = queryValue(req, 'cursor')
        const preview = await invoke(segmentContactsVerb, req.ctx, { id: s.id, limit: 25, cursor })
        const model = modelFromSegment(s)
        return page('pages/segments/show', s.name, {
          segment: s,
          groups: model.groups,
          contacts: preview.data,
          matching: preview.pagination.total,
          next_url: nextPageUrl(`${PATH}/${s.id}`, {}, preview.pagination.next_cursor),
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req) => {
        const s = await invoke(getSegmentVerb, req.ctx, { id: req.params.id })
        const saved = s.estimated_size === null ? null : { estimated_size: s.estimated_size, sample: [] }
        return builderPage(req, modelFromSegment(s), s.id, {}, 200, saved)
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const s = await invoke(getSegmentVerb, req.ctx, { id: req.params.id })
        return await builderPost(req, s.id)
      },
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getSegmentVerb, req.ctx, { id: req.params.id }),
      confirm: (s) => page('pages/segments/delete', `Delete ${s.name}`, { segment: s }),
      act: async (req, s) => await invoke(deleteSegmentVerb, req.ctx, { id: s.id }),
      done: (s) => `Deleted the segment “${s.name}”.`,
    }),
  ],
})
