import { and, eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { type AbTestSettings, type CampaignRow, type CampaignVariant, templates } from '../../db/schema'
import type { FieldError } from '../../errors'
import { parseIsoDuration } from '../../lib/duration'
import { parseId } from '../../lib/ids'
import { mapInOrder } from '../../lib/in-order'
import { iso } from '../../lib/time'
import { htmlEngine, textEngine } from '../templates/engine'
import { parseOrError } from '../templates/syntax'
import type { CampaignInput } from './inputs'

// An A/B test's settings as a campaign stores them, checked on create and PATCH: 2 to 5 named
// variants, each changing the subject and/or the content, and how the winner is chosen.

const SECOND = 1000
const MAX_TEST_MS = 30 * 24 * 3600 * SECOND

/**
 * The variants and test settings to store, from the input and what the campaign had; errors name
 * the member at fault. Returns undefined members for "unchanged".
 */
export async function checkAbTest(
  db: Db,
  clientId: string,
  channel: CampaignRow['channel'],
  input: Pick<CampaignInput, 'variants' | 'ab_test'>,
  current: Pick<CampaignRow, 'variants' | 'abTest'> | null,
  errors: FieldError[],
): Promise<{ variants?: CampaignVariant[] | null; abTest?: AbTestSettings | null }> {
  const out: { variants?: CampaignVariant[] | null; abTest?: AbTestSettings | null } = {}
  if (input.variants !== undefined)
    out.variants =
      input.variants === null ? null : await checkVariants(db, clientId, channel, input.variants, errors)
  if (input.ab_test !== undefined) {
    if (input.ab_test === null) out.abTest = null
    else {
      const ms = parseIsoDuration(input.ab_test.duration)
      if (ms === null)
        errors.push({
          field: 'ab_test.duration',
          message: 'must be an ISO 8601 duration such as PT4H or P1D',
        })
      else if (ms < SECOND || ms > MAX_TEST_MS)
        errors.push({ field: 'ab_test.duration', message: 'must be between 1 second and 30 days' })
      else out.abTest = { ...input.ab_test, duration_ms: ms }
    }
  }
  const variants = out.variants === undefined ? current?.variants : out.variants
  const abTest = input.ab_test === undefined ? current?.abTest : input.ab_test
  if (variants && !abTest)
    errors.push({ field: 'ab_test', message: 'is required with variants: {test_share, metric, duration}' })
  if (abTest && !variants) errors.push({ field: 'variants', message: 'an A/B test needs 2 to 5 variants' })
  return out
}

async function checkVariants(
  db: Db,
  clientId: string,
  channel: CampaignRow['channel'],
  given: readonly CampaignVariant[],
  errors: FieldError[],
): Promise<CampaignVariant[]> {
  const names = new Set<string>()
  return await mapInOrder(given, async (raw, i) => {
    const field = `variants[${i}]`
    const v = { ...raw, template_id: raw.template_id ? (parseId(raw.template_id) ?? raw.template_id) : null }
    if (names.has(v.name.toLowerCase())) errors.push({ field: `${field}.name`, message: 'must be unique' })
    names.add(v.name.toLowerCase())
    if (!v.subject && !v.template_id && !v.body_html && !v.body_text)
      errors.push({ field, message: 'needs a subject, a template_id or a body to differ by' })
    if (v.template_id && (v.body_html || v.body_text))
      errors.push({ field: `${field}.template_id`, message: 'give template_id or bodies, not both' })
    if (v.template_id) {
      const t = (
        await db
          .select({ channel: templates.channel })
          .from(templates)
          .where(and(eq(templates.id, v.template_id), eq(templates.clientId, clientId)))
          .limit(1)
      )[0]
      if (!t) errors.push({ field: `${field}.template_id`, message: 'no such template in this client' })
      else if (t.channel !== channel)
        errors.push({
          field: `${field}.template_id`,
          message: `is a ${t.channel} template; this campaign sends ${channel}`,
        })
    }
    for (const [member, engine] of [
      ['subject', textEngine],
      ['body_html', htmlEngine],
      ['body_text', textEngine],
    ] as const) {
      const source = v[member]
      if (!source) continue
      const parsed = parseOrError(engine, `${field}.${member}`, source)
      if (!parsed.ok) errors.push(parsed.error)
    }
    return v
  })
}

/** The variant named `name` (case-insensitive), or -1. */
export const variantIndex = (row: CampaignRow, name: string) =>
  (row.variants ?? []).findIndex((v) => v.name.toLowerCase() === name.toLowerCase())

/** When the test share was released plus the test's duration: when the winner is chosen. */
export const decidesAt = (row: CampaignRow): number | null =>
  row.abStartedAt !== null && row.abTest ? row.abStartedAt + row.abTest.duration_ms : null

/** The test's progress on the campaign: null without a test. */
export function presentAbTestState(row: CampaignRow) {
  if (!row.abTest || !row.variants) return null
  const d = row.abDecision
  const at = decidesAt(row)
  return {
    phase: d ? ('decided' as const) : row.abStartedAt !== null ? ('testing' as const) : ('waiting' as const),
    started_at: row.abStartedAt === null ? null : iso(row.abStartedAt),
    decides_at: at === null ? null : iso(at),
    winner: d ? row.variants[d.winner]!.name : null,
    decided_at: d ? iso(d.decided_at) : null,
    reason: d?.reason ?? null,
  }
}

/** The test settings as given (the duration as written). */
export const presentAbTest = (row: CampaignRow) =>
  row.abTest
    ? { test_share: row.abTest.test_share, metric: row.abTest.metric, duration: row.abTest.duration }
    : null
