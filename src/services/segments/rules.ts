import { type SQL, sql } from 'drizzle-orm'
import { DIALECT } from '../../db/dialect'
import { equalsIgnoringAsciiCase, likeIgnoringAsciiCase, lowerAscii } from '../../db/postgres/like'
import type { FieldError } from '../../errors'
import { CONTACT_STATUSES } from '../../lib/enums'
import { idForms, parseId } from '../../lib/ids'
import { escapeLike } from '../../lib/like'
import { DAY_MS, parseIsoDateTime } from '../../lib/time'
import { notOneOf, quoteValue } from '../../lib/validate'
import { isTimeZoneIgnoringCase } from '../contacts/normalize'

// Segment rules are checked and compiled to ONE parameterised SQL condition over
// `contacts`. User values only ever reach SQL as bound parameters; column names come from the
// fixed tables below, never from input.

/** Operators on text (and numbers, in custom fields); the date fields add the three below. */
const TEXT_OPS = [
  'eq',
  'neq',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'in',
  'not_in',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'not_exists',
] as const
export const OPERATORS = [...TEXT_OPS, 'before', 'after', 'within_last_days'] as const
type Operator = (typeof OPERATORS)[number]

const TEXT_COLUMNS: Record<string, SQL> = {
  email: sql.raw('contacts.email'),
  first_name: sql.raw('contacts.first_name'),
  last_name: sql.raw('contacts.last_name'),
  company: sql.raw('contacts.company'),
  phone: sql.raw('contacts.phone'),
  status: sql.raw('contacts.status'),
  timezone: sql.raw('contacts.timezone'),
}
/** Contact fields a rule may name directly (besides created_at, custom.<key>, list and event). */
export const TEXT_FIELDS = Object.keys(TEXT_COLUMNS)
export const TEXT_OPERATORS: Operator[] = [...TEXT_OPS]
export const DATE_OPERATORS: Operator[] = ['before', 'after', 'within_last_days', 'gt', 'gte', 'lt', 'lte']

/**
 * Fields whose values come from a closed set (contact statuses; time zones, which contacts only
 * accept as IANA names). A whole value outside the set (eq, neq, in, not_in) can never match and
 * is almost always a typo, so it is refused (a part, as in contains, is not checked). Values
 * compare case-insensitively, so the check ignores case too.
 */
const CLOSED_VALUES: Record<string, { has(value: string): boolean; refuse(value: unknown): string }> = {
  status: {
    has: (v) => (CONTACT_STATUSES as readonly string[]).includes(v.toLowerCase()),
    refuse: (v) => notOneOf(v, CONTACT_STATUSES),
  },
  timezone: {
    has: isTimeZoneIgnoringCase,
    refuse: (v) => `${quoteValue(v)} is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`,
  },
}

/** Names each whole value of a closed-set field that is outside its set. */
function checkClosedValues(field: string, op: Operator, value: unknown, path: string, errors: FieldError[]) {
  const closed = CLOSED_VALUES[field]
  if (!closed) return
  const outside = (v: unknown) => isScalar(v) && !(typeof v === 'string' && closed.has(v))
  // A value of the wrong shape is left to compare(), which says what shape it needs.
  if ((op === 'eq' || op === 'neq') && outside(value))
    errors.push({ field: `${path}.value`, message: closed.refuse(value) })
  if ((op === 'in' || op === 'not_in') && Array.isArray(value))
    value.forEach((v, i) => {
      if (outside(v)) errors.push({ field: `${path}.value[${i}]`, message: closed.refuse(v) })
    })
}

export const ACTIVITY_EVENTS: Record<string, string> = {
  delivered: 'email.delivered',
  opened: 'email.opened',
  clicked: 'email.clicked',
  replied: 'reply.received',
  bounced: 'email.bounced',
  unsubscribed: 'contact.unsubscribed',
}

export interface RuleGroup {
  match: 'all' | 'any'
  rules: Record<string, unknown>[]
}

export interface CompileContext {
  now: number
  /** Whether a list id belongs to the segment's client (references must be visible). */
  listExists(id: string): boolean
}

export const MAX_SEGMENT_VALUES = 10_000
const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

function like(column: SQL, pattern: string, negate: boolean): SQL {
  const cond = sql`${column} LIKE ${pattern} ESCAPE '\\'`
  return negate ? sql`(${column} IS NULL OR NOT (${cond}))` : cond
}

/**
 * The comparison of a field against a rule's operator and value, on either store. The value is
 * checked (and the SQLite form built) by compare(); PostgreSQL's form then follows SQLite's
 * answers (comparePg).
 */
function compareField(
  column: SQL,
  pg: PgOperand,
  op: Operator,
  value: unknown,
  path: string,
  errors: FieldError[],
  kind: 'text' | 'date' | 'custom',
  now: number,
): SQL | null {
  const cond = compare(column, op, value, path, errors, kind, now)
  return cond === null || DIALECT !== 'postgres' ? cond : comparePg(pg, op, value, kind, now)
}

/** The comparison of one value expression against a rule's operator and value. */
function compare(
  column: SQL,
  op: Operator,
  value: unknown,
  path: string,
  errors: FieldError[],
  kind: 'text' | 'date' | 'custom',
  now: number,
): SQL | null {
  const need = (ok: boolean, message: string) => {
    if (!ok) errors.push({ field: `${path}.value`, message })
    return ok
  }
  switch (op) {
    case 'exists':
      return sql`(${column} IS NOT NULL AND ${column} != '')`
    case 'not_exists':
      return sql`(${column} IS NULL OR ${column} = '')`
    case 'eq':
    case 'neq': {
      if (!need(isScalar(value), 'must be a string, number or boolean')) return null
      const cond =
        typeof value === 'string' ? sql`lower(${column}) = lower(${value})` : sql`${column} = ${value}`
      return op === 'eq' ? cond : sql`(${column} IS NULL OR NOT (${cond}))`
    }
    case 'contains':
    case 'not_contains':
    case 'starts_with':
    case 'ends_with': {
      if (!need(typeof value === 'string' && value.length > 0, 'must be a non-empty string')) return null
      const v = escapeLike(value as string)
      const pattern = op === 'starts_with' ? `${v}%` : op === 'ends_with' ? `%${v}` : `%${v}%`
      return like(column, pattern, op === 'not_contains')
    }
    case 'in':
    case 'not_in': {
      if (
        !need(
          Array.isArray(value) && value.length > 0 && value.length <= 1000 && value.every(isScalar),
          'must be a non-empty array (at most 1000) of strings or numbers',
        )
      )
        return null
      const values = (value as (string | number | boolean)[]).map((v) =>
        typeof v === 'string' ? v.toLowerCase() : v,
      )
      const list = sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      )
      const target = sql`(CASE WHEN typeof(${column}) = 'text' THEN lower(${column}) ELSE ${column} END)`
      return op === 'in'
        ? sql`${target} IN (${list})`
        : sql`(${column} IS NULL OR ${target} NOT IN (${list}))`
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const symbol = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op]
      if (kind === 'date') {
        const ms = typeof value === 'string' ? parseIsoDateTime(value) : null
        if (!need(ms !== null, 'must be an ISO 8601 date-time')) return null
        return sql`${column} ${sql.raw(symbol)} ${ms}`
      }
      if (!need(typeof value === 'number' || typeof value === 'string', 'must be a number or string'))
        return null
      return sql`${column} ${sql.raw(symbol)} ${value as string | number}`
    }
    case 'before':
    case 'after': {
      const ms = typeof value === 'string' ? parseIsoDateTime(value) : null
      if (!need(ms !== null, 'must be an ISO 8601 date-time')) return null
      if (kind === 'date') return op === 'before' ? sql`${column} < ${ms}` : sql`${column} > ${ms}`
      // Custom dates are stored as ISO text, which orders correctly as text.
      const text = new Date(ms!).toISOString()
      return op === 'before' ? sql`${column} < ${text}` : sql`${column} > ${text}`
    }
    case 'within_last_days': {
      if (
        !need(
          Number.isInteger(value) && (value as number) > 0 && (value as number) <= 36500,
          'must be a whole number of days from 1 to 36500',
        )
      )
        return null
      const since = now - (value as number) * DAY_MS
      return kind === 'date' ? sql`${column} >= ${since}` : sql`${column} >= ${new Date(since).toISOString()}`
    }
  }
}

function unknownMembers(
  rule: Record<string, unknown>,
  allowed: string[],
  path: string,
  errors: FieldError[],
) {
  for (const k of Object.keys(rule))
    if (!allowed.includes(k)) errors.push({ field: `${path}.${k}`, message: 'is not a known member' })
}

function compileRule(
  rule: Record<string, unknown>,
  path: string,
  c: CompileContext,
  errors: FieldError[],
): SQL | null {
  const { field, operator, value } = rule
  if (typeof field !== 'string') {
    errors.push({ field: `${path}.field`, message: 'is required' })
    return null
  }
  if (field === 'event') {
    unknownMembers(
      rule,
      ['field', 'event', 'operator', 'campaign_id', 'within_days', 'min_count'],
      path,
      errors,
    )
    const type = typeof rule.event === 'string' ? ACTIVITY_EVENTS[rule.event] : undefined
    if (!type)
      errors.push({
        field: `${path}.event`,
        message: notOneOf(rule.event, Object.keys(ACTIVITY_EVENTS)),
      })
    if (operator !== 'has' && operator !== 'has_not')
      errors.push({
        field: `${path}.operator`,
        message: `${notOneOf(operator, ['has', 'has_not'])} (event rules)`,
      })
    // Correlated on the contact, so each probe is a short range of events_contact_type_idx
    // (contact ids are unique across clients). An IN over every matching event of the client
    // built a temporary table of hundreds of thousands of rows at 5M events.
    const conditions: SQL[] = [sql`events.contact_id = contacts.id`, sql`events.type = ${type ?? ''}`]
    if (rule.campaign_id !== undefined) {
      // A UUID or cmp_…; events store the UUID.
      const campaignId = typeof rule.campaign_id === 'string' ? parseId(rule.campaign_id) : null
      if (campaignId === null)
        errors.push({
          field: `${path}.campaign_id`,
          message: `${quoteValue(rule.campaign_id)} is not a campaign id (${idForms('campaign')})`,
        })
      else conditions.push(sql`events.campaign_id = ${campaignId}`)
    }
    if (rule.within_days !== undefined) {
      const d = rule.within_days
      if (!Number.isInteger(d) || (d as number) < 1 || (d as number) > 36500)
        errors.push({
          field: `${path}.within_days`,
          message: 'must be a whole number of days from 1 to 36500',
        })
      else conditions.push(sql`events.occurred_at >= ${c.now - (d as number) * DAY_MS}`)
    }
    const where = sql.join(conditions, sql` AND `)
    if (rule.min_count !== undefined) {
      const m = rule.min_count
      if (!Number.isInteger(m) || (m as number) < 1 || (m as number) > 1_000_000) {
        errors.push({ field: `${path}.min_count`, message: 'must be a whole number of at least 1' })
        return null
      }
      const counted = sql`(SELECT count(*) FROM events WHERE ${where})`
      return operator === 'has_not' ? sql`${counted} < ${m as number}` : sql`${counted} >= ${m as number}`
    }
    const exists = sql`EXISTS (SELECT 1 FROM events WHERE ${where})`
    return operator === 'has_not' ? sql`NOT ${exists}` : exists
  }

  unknownMembers(rule, ['field', 'operator', 'value'], path, errors)
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    errors.push({ field: `${path}.operator`, message: notOneOf(operator, OPERATORS) })
    return null
  }
  const op = operator as Operator
  const allowOnly = (ops: Operator[]) => {
    if (ops.includes(op)) return true
    errors.push({
      field: `${path}.operator`,
      message: `${op} does not apply to ${field}; use one of: ${ops.join(', ')}`,
    })
    return false
  }

  if (field === 'list') {
    if (!allowOnly(['in', 'not_in'])) return null
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      value.length > 1000 ||
      value.some((v) => typeof v !== 'string')
    ) {
      errors.push({ field: `${path}.value`, message: 'must be a non-empty array of at most 1000 list ids' })
      return null
    }
    ;(value as string[]).forEach((id, i) => {
      if (!c.listExists(id)) errors.push({ field: `${path}.value[${i}]`, message: 'no such list' })
    })
    const ids = sql.join(
      (value as string[]).map((v) => sql`${v}`),
      sql`, `,
    )
    // A member is someone confirmed on the list: not waiting for a double opt-in, not gone.
    const sub = sql`SELECT contact_id FROM list_members WHERE list_id IN (${ids}) AND status = 'confirmed'`
    return op === 'in' ? sql`contacts.id IN (${sub})` : sql`contacts.id NOT IN (${sub})`
  }
  if (field === 'created_at') {
    if (!allowOnly(DATE_OPERATORS)) return null
    const column = sql.raw('contacts.created_at')
    return compareField(column, { text: column }, op, value, path, errors, 'date', c.now)
  }
  if (field.startsWith('custom.')) {
    const key = field.slice('custom.'.length)
    if (key.length === 0 || key.length > 64) {
      errors.push({ field: `${path}.field`, message: 'custom.<key> needs a key of 1 to 64 characters' })
      return null
    }
    const path$ = `$."${key.replaceAll('"', '""')}"`
    return compareField(
      sql`json_extract(contacts.custom_fields, ${path$})`,
      customOperand(key),
      op,
      value,
      path,
      errors,
      'custom',
      c.now,
    )
  }
  const column = TEXT_COLUMNS[field]
  if (!column) {
    errors.push({
      field: `${path}.field`,
      message: `unknown field ${quoteValue(field)}; use one of: ${[...Object.keys(TEXT_COLUMNS), 'created_at', 'custom.<key>', 'list', 'event'].join(', ')}`,
    })
    return null
  }
  if (!allowOnly(TEXT_OPERATORS)) return null
  checkClosedValues(field, op, value, path, errors)
  return compareField(column, { text: column }, op, value, path, errors, 'text', c.now)
}

/** Checks every rule (collecting every error) and returns the condition, or the errors. */
export function compileSegment(
  match: 'all' | 'any',
  groups: RuleGroup[],
  c: CompileContext,
): { sql: SQL | null; errors: FieldError[] } {
  const errors: FieldError[] = []
  // Each array value is one bound parameter; keep the whole segment well inside SQLite's limit.
  const values = groups.reduce(
    (n, g) => n + g.rules.reduce((m, r) => m + (Array.isArray(r.value) ? r.value.length : 1), 0),
    0,
  )
  if (values > MAX_SEGMENT_VALUES)
    return {
      sql: null,
      errors: [
        {
          field: 'rule_groups',
          message: `has ${values} values in all; at most ${MAX_SEGMENT_VALUES} are allowed`,
        },
      ],
    }
  const groupSql: SQL[] = []
  groups.forEach((group, g) => {
    const parts: SQL[] = []
    // Activity rules first: an index probe per contact is cheaper than json_extract, and
    // SQLite evaluates the terms of a conjunction in the order written.
    const ordered = group.rules
      .map((rule, r) => ({ rule, r }))
      .sort((a, b) => Number(b.rule.field === 'event') - Number(a.rule.field === 'event'))
    for (const { rule, r } of ordered) {
      const compiled = compileRule(rule, `rule_groups[${g}].rules[${r}]`, c, errors)
      if (compiled) parts.push(sql`(${compiled})`)
    }
    if (parts.length) groupSql.push(sql`(${sql.join(parts, group.match === 'any' ? sql` OR ` : sql` AND `)})`)
  })
  if (errors.length) return { sql: null, errors }
  if (groupSql.length === 0) return { sql: sql`1 = 1`, errors }
  return { sql: sql.join(groupSql, match === 'any' ? sql` OR ` : sql` AND `), errors }
}

// ── PostgreSQL ───────────────────────────────────────────────────────────────────────────────
// Rules mean on PostgreSQL what they mean on SQLite, whose values carry their own type: a custom
// field is what json_extract gives (a JSON string is text, a number a number, true and false the
// integers 1 and 0, an object or array its JSON text), and SQLite orders any number before any
// text. Text compares bytewise (the "C" collation); case folds for ASCII letters only (like.ts).

/** A field on PostgreSQL: its value as text and, for a custom field, the jsonb member itself. */
interface PgOperand {
  text: SQL
  json?: SQL
}

/** custom.<key> on PostgreSQL, read as SQLite's json_extract would give it. */
function customOperand(key: string): PgOperand {
  const json = sql`(contacts.custom_fields -> ${key}::text)`
  return {
    json,
    text: sql`(CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (CASE WHEN (${json})::boolean THEN '1' ELSE '0' END) ELSE contacts.custom_fields ->> ${key}::text END)`,
  }
}

const ORDER_SYMBOLS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

function comparePg(
  o: PgOperand,
  op: Operator,
  value: unknown,
  kind: 'text' | 'date' | 'custom',
  now: number,
): SQL {
  const t = o.text
  // A custom field's number (true and false count as 1 and 0), null when it holds text.
  const num = o.json
    ? sql`(CASE jsonb_typeof(${o.json}) WHEN 'number' THEN (${o.json})::text::numeric WHEN 'boolean' THEN (CASE WHEN (${o.json})::boolean THEN 1 ELSE 0 END) END)`
    : null
  const scalar = (v: string | number | boolean) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)
  const negate = (cond: SQL) => sql`(${t} IS NULL OR NOT coalesce(${cond}, false))`
  // SQLite's order between a field and a value: numbers before text, text bytewise. A text
  // column compares a number as its text (the column's affinity); a custom field does not.
  const order = (symbol: '>' | '>=' | '<' | '<=', v: string | number): SQL => {
    const s = sql.raw(symbol)
    if (kind === 'date') return sql`${t} ${s} ${v}`
    if (num === null) return sql`(${t} COLLATE "C" ${s} ${String(v)})`
    const textIsAbove = symbol === '>' || symbol === '>='
    return typeof v === 'number'
      ? sql`(CASE WHEN ${num} IS NOT NULL THEN ${num} ${s} ${v} WHEN ${t} IS NOT NULL THEN ${sql.raw(String(textIsAbove))} END)`
      : sql`(CASE WHEN ${num} IS NOT NULL THEN ${sql.raw(String(!textIsAbove))} WHEN ${t} IS NOT NULL THEN ${t} COLLATE "C" ${s} ${v} END)`
  }
  switch (op) {
    case 'exists':
      return sql`(${t} IS NOT NULL AND ${t} != '')`
    case 'not_exists':
      return sql`(${t} IS NULL OR ${t} = '')`
    case 'eq':
    case 'neq': {
      const v = value as string | number | boolean
      const cond =
        typeof v === 'string'
          ? equalsIgnoringAsciiCase(t, v)
          : num
            ? sql`${num} = ${scalar(v)}`
            : sql`${t} = ${String(scalar(v))}`
      return op === 'eq' ? cond : negate(cond)
    }
    case 'contains':
    case 'not_contains':
    case 'starts_with':
    case 'ends_with': {
      const v = escapeLike(value as string)
      const pattern = op === 'starts_with' ? `${v}%` : op === 'ends_with' ? `%${v}` : `%${v}%`
      const cond = likeIgnoringAsciiCase(t, pattern)
      return op === 'not_contains' ? sql`(${t} IS NULL OR NOT ${cond})` : cond
    }
    case 'in':
    case 'not_in': {
      const values = value as (string | number | boolean)[]
      const texts = values.filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase())
      const nums = values.filter((v) => typeof v !== 'string').map(scalar)
      const list = (vs: (string | number)[]) =>
        sql.join(
          vs.map((v) => sql`${v}`),
          sql`, `,
        )
      const parts: SQL[] = []
      // Text matches text only; a custom field's number matches numbers only.
      if (texts.length)
        parts.push(
          num
            ? sql`(${num} IS NULL AND ${lowerAscii(t)} IN (${list(texts)}))`
            : sql`${lowerAscii(t)} IN (${list(texts)})`,
        )
      if (nums.length && num) parts.push(sql`${num} IN (${list(nums)})`)
      const cond = parts.length ? sql`(${sql.join(parts, sql` OR `)})` : sql`false`
      return op === 'in' ? cond : negate(cond)
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const v = kind === 'date' ? parseIsoDateTime(value as string)! : (value as string | number)
      return order(ORDER_SYMBOLS[op], v)
    }
    case 'before':
    case 'after': {
      const ms = parseIsoDateTime(value as string)!
      return order(op === 'before' ? '<' : '>', kind === 'date' ? ms : new Date(ms).toISOString())
    }
    case 'within_last_days': {
      const since = now - (value as number) * DAY_MS
      return order('>=', kind === 'date' ? since : new Date(since).toISOString())
    }
  }
}
