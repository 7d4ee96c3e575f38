import { ServiceError } from '../../../errors'
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../../../lib/enums'
import { instantOfWall } from '../../../lib/zoned-time'
import { analyticsTrendsVerb } from '../../../services/analytics/verbs'
import {
  campaignAudienceVerb,
  campaignLocalScheduleVerb,
  campaignStatsVerb,
  cancelCampaignVerb,
  createCampaignVerb,
  getCampaignVerb,
  launchCampaignVerb,
  listCampaignsVerb,
  pauseCampaignVerb,
  pickWinnerVerb,
  updateCampaignVerb,
} from '../../../services/campaigns/verbs'
import { getDomainVerb } from '../../../services/domains/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { listSegmentsVerb } from '../../../services/segments/verbs'
import { getSenderVerb, listSendersVerb } from '../../../services/senders/verbs'
import { listTemplatesVerb } from '../../../services/templates/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { countBars, lineChart } from '../charts'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, fragment, type PortalRequest, page, redirect } from '../types'
import { campaignProgress } from './campaign-progress'
import { needsWorkspace, nextPageUrl, queryValue } from './links'

// Campaigns: the list with a status filter and a name search; create and edit
// (audience: a list or a segment; content: a template or a subject and bodies; sender; channel;
// schedule in the user's time zone); launch behind a confirmation page that shows how many
// recipients the launch will count (campaigns.audience: the same counter as the launch) and
// posts confirm=true; pause, resume (a launch of a paused campaign) and cancel (behind a
// confirmation); the campaign's page with a polled progress bar while it sends (and what a
// sending limit holds back, with the domain whose warm-up it waits for), and its stats
// as SVG charts (counters, and its activity over time from the analytics trends verb).

const PATH = '/admin/campaigns'

type Campaign = Awaited<ReturnType<typeof getCampaignVerb.run>>

/** datetime-local (a wall time in the user's zone) → ISO instant; anything else is passed on for the verb to refuse. */
function scheduledAt(req: PortalRequest): string | null {
  const v = text(req, 'scheduled_at')
  if (!v) return null
  const wall = Date.parse(`${v.length === 16 ? `${v}:00` : v}Z`)
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(v) || Number.isNaN(wall)) return v
  return new Date(instantOfWall(wall, req.user.timezone || 'UTC')).toISOString()
}

/** The ISO instant as a datetime-local value in the user's zone. */
function wallOf(iso: string | null, tz: string): string {
  if (!iso) return ''
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso))
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]))
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`
}

/** The form's fields as the verbs take them: the audience select is `list:<id>` or `segment:<id>`. */
function fieldsOf(req: PortalRequest) {
  const audience = text(req, 'audience') ?? ''
  const [kind, id] = audience.split(':', 2)
  const nullable = (name: string) => text(req, name) ?? null
  return {
    name: text(req, 'name') ?? '',
    channel: text(req, 'channel'),
    list_id: kind === 'list' ? (id ?? null) : null,
    segment_id: kind === 'segment' ? (id ?? null) : null,
    template_id: nullable('template_id'),
    sender_id: nullable('sender_id'),
    subject: nullable('subject'),
    body_html: nullable('body_html'),
    body_text: nullable('body_text'),
    scheduled_at: scheduledAt(req),
    send_at_local: nullable('send_at_local'),
  }
}

/** A refusal of list_id/segment_id is shown at the audience select. */
function withAudience(errors: FieldErrors): FieldErrors {
  const audience = errors.list_id ?? errors.segment_id
  return audience ? { ...errors, audience } : errors
}

/** The choices of the form: the workspace's lists, segments, templates and senders. */
async function choices(req: PortalRequest) {
  const all = async <T>(run: () => Promise<{ data: T[] }>) => (await run()).data
  return {
    lists: await all(async () => await invoke(listListsVerb, req.ctx, { limit: 200 })),
    segments: await all(async () => await invoke(listSegmentsVerb, req.ctx, { limit: 200 })),
    templates: await all(async () => await invoke(listTemplatesVerb, req.ctx, { limit: 200 })),
    senders: await all(async () => await invoke(listSendersVerb, req.ctx, { limit: 200 })),
    channels: CAMPAIGN_CHANNELS,
  }
}

async function form(
  req: PortalRequest,
  campaign: Campaign | null,
  errors: FieldErrors = {},
  given?: Record<string, unknown>,
) {
  const tz = req.user.timezone || 'UTC'
  const stored = campaign
    ? {
        ...campaign,
        audience: campaign.list_id
          ? `list:${campaign.list_id}`
          : campaign.segment_id
            ? `segment:${campaign.segment_id}`
            : '',
        scheduled_at: wallOf(campaign.scheduled_at, tz),
      }
    : { channel: 'email' }
  return page(
    campaign ? 'pages/campaigns/edit' : 'pages/campaigns/new',
    campaign ? `Edit ${campaign.name}` : 'New campaign',
    {
      campaign,
      values: given ?? stored,
      errors: withAudience(errors),
      timezone: tz,
      no_workspace: needsWorkspace(req),
      ...(await choices(req)),
    },
  )
}

/** Progress (polled while sending) and the stats, as the campaign page and its fragment show them. */
async function progressOf(req: PortalRequest, id: string) {
  const c = await invoke(getCampaignVerb, req.ctx, { id })
  const stats = await invoke(campaignStatsVerb, req.ctx, { id })
  return {
    campaign: c,
    stats,
    progress: campaignProgress(c, stats.failed),
    warming: await warmingDomain(req, c),
    ab: abTestOf(c, 'variants' in stats ? stats.variants : [], req.ctx.clock.now()),
    local: c.send_at_local ? await invoke(campaignLocalScheduleVerb, req.ctx, { id }) : null,
  }
}

/**
 * An A/B test as the page shows it: the variants side by side with their figures, the time left
 * before the winner is chosen, and whether an operator may still choose it.
 */
function abTestOf(c: Campaign, figures: readonly AbVariantStats[], now: number) {
  const state = c.ab_test_state
  if (!state || !c.variants || !c.ab_test) return null
  const left = state.decides_at && state.phase === 'testing' ? Date.parse(state.decides_at) - now : null
  return {
    state,
    test: c.ab_test,
    share_percent: Math.round(c.ab_test.test_share * 100),
    variants: c.variants.map((v, i) => ({ ...v, ...figures[i], subject: v.subject || c.subject })),
    minutes_left: left === null ? null : Math.max(0, Math.ceil(left / 60_000)),
    can_pick: state.phase === 'testing' && ['sending', 'paused', 'sent'].includes(c.status),
  }
}

type AbVariantStats = { name: string; sent: number; opened: number; clicked: number; winner: boolean }

/** The domain whose warm-up holds the campaign back (its sender's), when that is the reason. */
async function warmingDomain(req: PortalRequest, c: Campaign): Promise<string | null> {
  if (c.deferred?.reason !== 'warmup' || !c.sender_id) return null
  const sender = await invoke(getSenderVerb, req.ctx, { id: c.sender_id })
  if (sender.domain_id) return (await invoke(getDomainVerb, req.ctx, { id: sender.domain_id })).domain
  return sender.from_email.slice(sender.from_email.lastIndexOf('@') + 1)
}

const STAT_BARS = [
  ['sent', 'Sent'],
  ['delivered', 'Delivered'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['replied', 'Replied'],
  ['bounced', 'Bounced'],
  ['unsubscribed', 'Unsubscribed'],
  ['skipped', 'Skipped'],
  ['failed', 'Failed'],
] as const

/** The campaign's activity by hour since its first send (null before it sent, or for a role without analytics). */
async function activity(req: PortalRequest, c: Campaign) {
  if (!c.launched_at) return null
  const tz = req.user.timezone || 'UTC'
  const series = []
  let labels: string[] = []
  try {
    for (const [metric, name] of [
      ['sent', 'Sent'],
      ['delivered', 'Delivered'],
      ['opened', 'Opened'],
      ['clicked', 'Clicked'],
    ] as const) {
      const t = await invoke(analyticsTrendsVerb, req.ctx, {
        client_id: c.client_id,
        campaign_id: c.id,
        metric,
        interval: 'day',
        timezone: tz,
      })
      labels = t.points.map((p) => p.local.slice(0, 10))
      series.push({ name, values: t.points.map((p) => p.value) })
    }
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'FORBIDDEN' || err.code === 'VALIDATION_FAILED'))
      return null
    throw err
  }
  return lineChart(labels, series)
}

/** The live part of the page: status, actions, progress, results (polled while sending). */
async function liveOf(req: PortalRequest, id: string) {
  const data = await progressOf(req, id)
  const c = data.campaign
  return {
    ...data,
    bars: countBars(STAT_BARS.map(([k, name]) => ({ name, value: data.stats[k] }))),
    chart: await activity(req, c),
    can: {
      edit: ['draft', 'scheduled', 'paused'].includes(c.status),
      launch: c.status === 'draft' || c.status === 'scheduled',
      resume: c.status === 'paused',
      pause: c.status === 'scheduled' || c.status === 'sending',
      cancel: ['scheduled', 'sending', 'paused'].includes(c.status),
    },
  }
}

async function showPage(req: PortalRequest) {
  const live = await liveOf(req, req.params.id!)
  return page('pages/campaigns/show', live.campaign.name, live)
}

/** A state change: flash what happened, or why it was refused, on the campaign's page. */
async function act(req: PortalRequest, run: () => Promise<unknown>, message: string) {
  const to = `${PATH}/${req.params.id}`
  try {
    await run()
  } catch (err) {
    if (
      err instanceof ServiceError &&
      ['INVALID_STATE', 'CONFLICT', 'VALIDATION_FAILED'].includes(err.code)
    ) {
      const detail = Array.isArray(err.details)
        ? (err.details as { field: string; message: string }[])
            .map((d) => `${d.field} ${d.message}`)
            .join('; ')
        : ''
      return redirect(to, { kind: 'error', message: detail ? `${err.message}: ${detail}` : err.message })
    }
    throw err
  }
  return redirect(to, { kind: 'success', message })
}

export const campaignsSection = defineSection({
  path: PATH,
  title: 'Campaigns',
  order: 35,
  group: 'messaging',
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const status = queryValue(req, 'status')
        const search = queryValue(req, 'search')
        const filters = {
          status: (CAMPAIGN_STATUSES as readonly string[]).includes(status ?? '') ? status : undefined,
          search,
        }
        const result = await invoke(listCampaignsVerb, req.ctx, {
          limit: 50,
          cursor: queryValue(req, 'cursor'),
          ...filters,
        })
        return page('pages/campaigns/index', 'Campaigns', {
          campaigns: result.data,
          total: result.pagination.total,
          filters: { status: filters.status ?? '', search: search ?? '' },
          filtered: Boolean(filters.status || search),
          statuses: CAMPAIGN_STATUSES,
          next_url: nextPageUrl(PATH, filters, result.pagination.next_cursor),
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: (req) => form(req, null) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(req, createCampaignVerb, fieldsOf(req), {
          done: (c) =>
            redirect(`${PATH}/${c.id}`, { kind: 'success', message: `Created the campaign “${c.name}”.` }),
          retry: (errors) => form(req, null, errors, values(req)),
        }),
    },
    { method: 'GET', path: `${PATH}/:id`, handler: showPage },
    {
      method: 'GET',
      path: `${PATH}/:id/progress`,
      handler: async (req) => fragment('pages/campaigns/live', await liveOf(req, req.params.id!)),
    },
    {
      method: 'GET',
      path: `${PATH}/:id/edit`,
      handler: async (req) => form(req, await invoke(getCampaignVerb, req.ctx, { id: req.params.id! })),
    },
    {
      method: 'POST',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const c = await invoke(getCampaignVerb, req.ctx, { id: req.params.id! })
        return await submit(
          req,
          updateCampaignVerb,
          { id: c.id, ...fieldsOf(req) },
          {
            done: (u) =>
              redirect(`${PATH}/${u.id}`, { kind: 'success', message: `Saved the campaign “${u.name}”.` }),
            retry: (errors) => form(req, c, errors, values(req)),
          },
        )
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id/launch`,
      handler: async (req) => {
        const c = await invoke(getCampaignVerb, req.ctx, { id: req.params.id! })
        const audience = await invoke(campaignAudienceVerb, req.ctx, { id: c.id })
        const tz = req.user.timezone || 'UTC'
        const later = c.scheduled_at !== null && Date.parse(c.scheduled_at) > req.ctx.clock.now()
        return page('pages/campaigns/launch', `Launch ${c.name}`, {
          campaign: c,
          audience,
          later,
          timezone: tz,
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/launch`,
      handler: async (req) => {
        const confirm = text(req, 'confirm') === 'true'
        let launched = null as { total_recipients: number | null; status: string } | null
        const answer = await act(
          req,
          async () => {
            launched = await invoke(launchCampaignVerb, req.ctx, { id: req.params.id!, confirm })
          },
          '',
        )
        if (answer.flash?.kind === 'error' || !launched) return answer
        const { total_recipients: total, status } = launched
        const count = `${Number(total).toLocaleString('en-US')} recipient(s)`
        return redirect(answer.to, {
          kind: 'success',
          message:
            total === null
              ? 'Scheduled: the campaign starts at its time.'
              : status === 'scheduled'
                ? `Launched: ${count}, each at their local time; it starts with the first of them.`
                : `Launched: sending to ${count}.`,
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/winner`,
      handler: (req) =>
        act(
          req,
          async () =>
            await invoke(pickWinnerVerb, req.ctx, {
              id: req.params.id!,
              variant: text(req, 'variant') ?? '',
            }),
          `Chose “${text(req, 'variant') ?? ''}”: the rest of the audience gets it now.`,
        ),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/pause`,
      handler: (req) =>
        act(req, async () => await invoke(pauseCampaignVerb, req.ctx, { id: req.params.id! }), 'Paused.'),
    },
    {
      method: 'POST',
      path: `${PATH}/:id/resume`,
      handler: (req) =>
        act(
          req,
          async () => await invoke(launchCampaignVerb, req.ctx, { id: req.params.id!, confirm: true }),
          'Resumed.',
        ),
    },
    {
      method: 'GET',
      path: `${PATH}/:id/cancel`,
      handler: async (req) => {
        const c = await invoke(getCampaignVerb, req.ctx, { id: req.params.id! })
        return page('pages/campaigns/cancel', `Cancel ${c.name}`, { campaign: c })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/cancel`,
      handler: (req) =>
        act(
          req,
          async () => await invoke(cancelCampaignVerb, req.ctx, { id: req.params.id! }),
          'Cancelled: what was still queued will not be sent.',
        ),
    },
  ],
})
