import { and, eq, inArray, ne, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { campaigns, journeys, sequences, type TemplateRow } from '../../db/schema'
import { ServiceError } from '../../errors'
import type { CampaignStatus } from '../../lib/enums'

// Which records would break if a template went away, so delete can refuse (409 CONFLICT) instead
// of letting a campaign fail mid-send or a journey's send step fail later.
//
// "In use" is every record that may still render the template:
// - a campaign that is not finished: draft, scheduled, sending or paused. Drafts count because
//   a draft is work someone means to launch; launch would then refuse with "the template no
//   longer exists" and the content would have to be rebuilt. The fix is cheap and explicit:
//   point the draft at another template, or delete it. Sent, failed and cancelled campaigns
//   keep their template_id as history and do not block.
// - a journey with a send node naming it, and a sequence with a step naming it, unless archived
//   (archived is final: nothing of it runs again). Drafts count for the same reason as above.
// Queued transactional messages (POST /messages with a template) are not counted: they leave
// the outbox within seconds, and one whose template is gone fails with that reason.

const LIVE_CAMPAIGN_STATES = [
  'draft',
  'scheduled',
  'sending',
  'paused',
] as const satisfies readonly CampaignStatus[]

interface TemplateUser {
  type: 'campaign' | 'journey' | 'sequence'
  id: string
  name: string
  status: string
}

/** Every record of the template's client that may still render it, campaigns first. */
async function templateUsers(ctx: Ctx, t: Pick<TemplateRow, 'id' | 'clientId'>): Promise<TemplateUser[]> {
  const fields = (table: typeof campaigns | typeof journeys | typeof sequences) => ({
    id: table.id,
    name: table.name,
    status: table.status,
  })
  const usedIn = (column: typeof journeys.nodes | typeof sequences.steps) =>
    DIALECT === 'postgres'
      ? sql`exists (select 1 from jsonb_array_elements(${column}) AS e(value) where e.value->>'template_id' = ${t.id})`
      : sql`exists (select 1 from json_each(${column}) where json_extract(value, '$.template_id') = ${t.id})`
  const inCampaigns = await ctx.db
    .select(fields(campaigns))
    .from(campaigns)
    .where(
      and(
        eq(campaigns.clientId, t.clientId),
        eq(campaigns.templateId, t.id),
        inArray(campaigns.status, LIVE_CAMPAIGN_STATES),
      ),
    )
  const inJourneys = await ctx.db
    .select(fields(journeys))
    .from(journeys)
    .where(and(eq(journeys.clientId, t.clientId), ne(journeys.status, 'archived'), usedIn(journeys.nodes)))
  const inSequences = await ctx.db
    .select(fields(sequences))
    .from(sequences)
    .where(and(eq(sequences.clientId, t.clientId), ne(sequences.status, 'archived'), usedIn(sequences.steps)))
  return [
    ...inCampaigns.map((r) => ({ type: 'campaign' as const, ...r })),
    ...inJourneys.map((r) => ({ type: 'journey' as const, ...r })),
    ...inSequences.map((r) => ({ type: 'sequence' as const, ...r })),
  ]
}

/** How many users the message names before "and N more". */
const NAMED = 3

/** 409 CONFLICT naming what uses the template; details.used_by lists every one. */
export async function assertTemplateUnused(ctx: Ctx, t: Pick<TemplateRow, 'id' | 'clientId'>): Promise<void> {
  const users = await templateUsers(ctx, t)
  if (users.length === 0) return
  const named = users.slice(0, NAMED).map((u) => `${u.type} ${u.id} (${u.status})`)
  const more = users.length > NAMED ? ` and ${users.length - NAMED} more` : ''
  throw new ServiceError(
    'CONFLICT',
    `The template is used by ${named.join(', ')}${more}; point them at another template, or finish, archive or delete them first`,
    { used_by: users },
  )
}
