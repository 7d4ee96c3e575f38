import { ServiceError } from '../../../errors'
import {
  ACTIVITY_EVENTS,
  DATE_OPERATORS,
  OPERATORS,
  TEXT_FIELDS,
  TEXT_OPERATORS,
} from '../../../services/segments/rules'
import { type FieldErrors, fieldErrorsOf } from '../forms'
import type { PortalRequest } from '../types'

// The segment rule builder's form, both ways: the flat form fields (g0.match, g0.r1.field,
// g0.r1.value, …) to the verb's {match, rule_groups} and back, the builder's actions (add or
// remove a rule or group) applied to that model, and the verb's 422 details placed next to the
// rule they name. Plain form posts, so the builder works without JavaScript; htmx only makes
// the same posts in place.

export interface RuleModel {
  /** The builder's field choice: a contact field, `custom` (with `key`), `list` or `event`. */
  field: string
  key: string
  operator: string
  value: string
  lists: string[]
  event: string
  campaign_id: string
  within_days: string
  min_count: string
}
export interface GroupModel {
  match: 'all' | 'any'
  rules: RuleModel[]
}
export interface SegmentModel {
  name: string
  match: 'all' | 'any'
  groups: GroupModel[]
}

/** The builder's field choices, in the order shown. */
export const FIELD_CHOICES = [...TEXT_FIELDS, 'created_at', 'custom', 'list', 'event'] as const

/** The operators that apply to a field choice (the verb still checks every rule). */
export function operatorsFor(field: string): readonly string[] {
  if (field === 'event') return ['has', 'has_not']
  if (field === 'list') return ['in', 'not_in']
  if (field === 'created_at') return DATE_OPERATORS
  if (field === 'custom') return OPERATORS
  return TEXT_OPERATORS
}
export const EVENT_CHOICES = Object.keys(ACTIVITY_EVENTS)

/** Operator names as the builder shows them (the value sent is the API's own name). */
export const OPERATOR_LABELS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  in: 'is one of',
  not_in: 'is none of',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  exists: 'is set',
  not_exists: 'is not set',
  before: 'before',
  after: 'after',
  within_last_days: 'within the last N days',
  has: 'has',
  has_not: 'has not',
}

export const emptyRule = (): RuleModel => ({
  field: 'email',
  key: '',
  operator: 'contains',
  value: '',
  lists: [],
  event: 'opened',
  campaign_id: '',
  within_days: '',
  min_count: '',
})
export const emptyGroup = (): GroupModel => ({ match: 'all', rules: [emptyRule()] })

const match = (v: unknown): 'all' | 'any' => (v === 'any' ? 'any' : 'all')
const str = (form: FormData, name: string) => {
  const v = form.get(name)
  return typeof v === 'string' ? v : ''
}
const indexes = (form: FormData, pattern: RegExp) =>
  [...new Set([...form.keys()].flatMap((k) => pattern.exec(k)?.[1] ?? []))].map(Number).sort((a, b) => a - b)

/** The builder as submitted. */
export function modelFromForm(req: PortalRequest): SegmentModel {
  const form = req.form ?? new FormData()
  const groups = indexes(form, /^g(\d+)\.match$/).map((g) => ({
    match: match(str(form, `g${g}.match`)),
    rules: indexes(form, new RegExp(`^g${g}\\.r(\\d+)\\.field$`)).map((r) => {
      const p = `g${g}.r${r}.`
      return {
        field: str(form, `${p}field`),
        key: str(form, `${p}key`).trim(),
        operator: str(form, `${p}operator`),
        value: str(form, `${p}value`),
        lists: form.getAll(`${p}lists`).filter((v): v is string => typeof v === 'string' && v !== ''),
        event: str(form, `${p}event`),
        campaign_id: str(form, `${p}campaign_id`),
        within_days: str(form, `${p}within_days`).trim(),
        min_count: str(form, `${p}min_count`).trim(),
      }
    }),
  }))
  return { name: str(form, 'name'), match: match(str(form, 'match')), groups }
}

/** A saved segment in the builder. */
export function modelFromSegment(s: {
  name: string
  match: 'all' | 'any'
  rule_groups: unknown[]
}): SegmentModel {
  const text = (v: unknown) =>
    v === undefined || v === null ? '' : Array.isArray(v) ? v.join(', ') : String(v)
  return {
    name: s.name,
    match: s.match,
    groups: (s.rule_groups as { match: 'all' | 'any'; rules: Record<string, unknown>[] }[]).map((g) => ({
      match: g.match,
      rules: g.rules.map((rule) => {
        const field = String(rule.field ?? '')
        const custom = field.startsWith('custom.')
        return {
          ...emptyRule(),
          field: custom ? 'custom' : field,
          key: custom ? field.slice('custom.'.length) : '',
          operator: String(rule.operator ?? ''),
          value: field === 'list' ? '' : text(rule.value),
          lists: field === 'list' && Array.isArray(rule.value) ? rule.value.map(String) : [],
          event: text(rule.event) || 'opened',
          campaign_id: text(rule.campaign_id),
          within_days: text(rule.within_days),
          min_count: text(rule.min_count),
        }
      }),
    })),
  }
}

const NO_VALUE = new Set(['exists', 'not_exists'])
const LIST_VALUE = new Set(['in', 'not_in'])
const numberOr = (s: string): string | number => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s)

/** One rule as the verb takes it; values typed by operator (the verb reports what is wrong). */
function ruleInput(r: RuleModel): Record<string, unknown> {
  if (r.field === 'event') {
    const rule: Record<string, unknown> = { field: 'event', event: r.event, operator: r.operator }
    if (r.campaign_id) rule.campaign_id = r.campaign_id
    if (r.within_days) rule.within_days = numberOr(r.within_days)
    if (r.min_count) rule.min_count = numberOr(r.min_count)
    return rule
  }
  if (r.field === 'list') return { field: 'list', operator: r.operator, value: r.lists }
  const field = r.field === 'custom' ? `custom.${r.key}` : r.field
  if (NO_VALUE.has(r.operator)) return { field, operator: r.operator }
  let value: unknown = r.value
  if (LIST_VALUE.has(r.operator))
    value = r.value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
  else if (r.operator === 'within_last_days') value = numberOr(r.value)
  else if (['gt', 'gte', 'lt', 'lte'].includes(r.operator) && r.field !== 'created_at')
    value = numberOr(r.value)
  return { field, operator: r.operator, value }
}

export function segmentInput(m: SegmentModel) {
  return {
    match: m.match,
    rule_groups: m.groups.map((g) => ({ match: g.match, rules: g.rules.map(ruleInput) })),
  }
}

/**
 * Applies a builder action (the submit button pressed) to the model. Returns false for
 * `save` (and anything unknown that is not an edit), so the caller saves instead.
 */
export function applyAction(m: SegmentModel, action: string): boolean {
  if (action === 'add-group') {
    m.groups.push(emptyGroup())
    return true
  }
  const addRule = /^add-rule-(\d+)$/.exec(action)
  if (addRule) {
    m.groups[Number(addRule[1])]?.rules.push(emptyRule())
    return true
  }
  const removeGroup = /^remove-group-(\d+)$/.exec(action)
  if (removeGroup) {
    m.groups.splice(Number(removeGroup[1]), 1)
    return true
  }
  const removeRule = /^remove-rule-(\d+)-(\d+)$/.exec(action)
  if (removeRule) {
    const g = m.groups[Number(removeRule[1])]
    g?.rules.splice(Number(removeRule[2]), 1)
    if (g && g.rules.length === 0) m.groups.splice(Number(removeRule[1]), 1)
    return true
  }
  return action !== 'save'
}

/**
 * The verb's refusal as messages: `rule_groups[1].rules[0].value` goes next to that rule
 * (`g1.r0`), a group's own error next to the group (`g1`), the rest as the form's.
 */
export function builderErrors(err: ServiceError): FieldErrors {
  const out = fieldErrorsOf(err)
  if (err.code !== 'VALIDATION_FAILED' || !Array.isArray(err.details)) return out
  delete out.rule_groups
  for (const d of err.details as { field: string; message: string }[]) {
    const m = /^rule_groups\[(\d+)\](?:\.rules\[(\d+)\])?\.?(.*)$/.exec(d.field)
    if (!m) {
      if (d.field === 'rule_groups') out.rule_groups ??= d.message
      continue
    }
    const key = m[2] === undefined ? `g${m[1]}` : `g${m[1]}.r${m[2]}`
    const what = m[3] ? `${m[3].replace(/\[\d+\]$/, '')}: ` : ''
    out[key] = out[key] ? `${out[key]}; ${what}${d.message}` : `${what}${d.message}`
  }
  return out
}

export const isServiceError = (err: unknown): err is ServiceError => err instanceof ServiceError
