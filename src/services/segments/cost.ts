import type { FieldError } from '../../errors'
import type { RuleGroup } from './rules'

// What a segment's rules cost per contact, counted before they run. Every rule is evaluated for
// each contact of the client, so the sum of the weights bounds the work of a count, a preview
// page or a journey condition. A plain comparison is an index-free column read; a `%…` LIKE scans
// the whole value; json_extract parses the contact's custom fields; an event rule probes the
// events index, and min_count counts the contact's events of that type.

const PLAIN = 1
/** contains, not_contains, ends_with: a LIKE with a leading wildcard reads the whole value. */
const LEADING_WILDCARD = 3
const WILDCARD_OPS = new Set(['contains', 'not_contains', 'ends_with'])
/** custom.<key>: the JSON of the contact's custom fields is parsed for each rule. */
const CUSTOM_FIELD = 2
const LIST = 2
const EVENT = 3
/** min_count counts the contact's matching events instead of stopping at the first. */
const EVENT_COUNT = 6
/** Values of `in`/`not_in` past this many add one per this many (the IN list is bound and sorted). */
const VALUES_PER_UNIT = 100

/**
 * The most a segment (or a journey condition) may cost. A realistic segment costs well under
 * 20; this admits, e.g., 40 plain comparisons plus 10 `contains` on custom fields plus 5 event
 * counts, and refuses the hundreds of wildcard matches and correlated counts the group limits
 * (20 × 50 rules) would otherwise allow.
 */
export const MAX_SEGMENT_COST = 120

/** The weight of one rule (a rule of an unknown shape costs as a plain one; compile refuses it). */
export function ruleCost(rule: Record<string, unknown>): number {
  const field = typeof rule.field === 'string' ? rule.field : ''
  if (field === 'event') return rule.min_count !== undefined ? EVENT_COUNT : EVENT
  if (field === 'list') return LIST
  const op = typeof rule.operator === 'string' ? rule.operator : ''
  let cost = WILDCARD_OPS.has(op) ? LEADING_WILDCARD : PLAIN
  if (field.startsWith('custom.')) cost += CUSTOM_FIELD
  if (Array.isArray(rule.value)) cost += Math.floor(rule.value.length / VALUES_PER_UNIT)
  return cost
}

const KINDS: [string, (rule: Record<string, unknown>) => boolean][] = [
  ['event rules with min_count', (r) => r.field === 'event' && r.min_count !== undefined],
  ['event rules', (r) => r.field === 'event' && r.min_count === undefined],
  [
    'contains/not_contains/ends_with rules',
    (r) => r.field !== 'event' && WILDCARD_OPS.has(String(r.operator)),
  ],
  ['custom.<key> rules', (r) => typeof r.field === 'string' && r.field.startsWith('custom.')],
]

/** What a group is mostly made of, for the message: "30 contains/not_contains/ends_with rules". */
function makeup(group: RuleGroup): string {
  const parts = KINDS.map(([name, is]) => [group.rules.filter(is).length, name] as const)
    .filter(([n]) => n > 0)
    .map(([n, name]) => `${n} ${name}`)
  return parts.length ? parts.join(', ') : `${group.rules.length} rules`
}

/**
 * One error naming `rule_groups` when the rules cost more than MAX_SEGMENT_COST: the total, the
 * costliest group and what to simplify. Rules of the wrong shape are left to the compiler.
 */
export function segmentCostErrors(groups: unknown): FieldError[] {
  if (!Array.isArray(groups)) return []
  const isGroup = (g: unknown): g is RuleGroup =>
    typeof g === 'object' && g !== null && Array.isArray((g as RuleGroup).rules)
  const costs = groups.map((g) =>
    isGroup(g)
      ? g.rules.reduce((sum, r) => sum + (typeof r === 'object' && r !== null ? ruleCost(r) : PLAIN), 0)
      : 0,
  )
  const total = costs.reduce((a, b) => a + b, 0)
  if (total <= MAX_SEGMENT_COST) return []
  const worst = costs.indexOf(Math.max(...costs))
  return [
    {
      field: 'rule_groups',
      message:
        `the rules cost ${total}, over the limit of ${MAX_SEGMENT_COST} (a plain comparison costs ${PLAIN}, ` +
        `contains/not_contains/ends_with ${LEADING_WILDCARD}, a custom.<key> field ${CUSTOM_FIELD} more, ` +
        `a list rule ${LIST}, an event rule ${EVENT}, with min_count ${EVENT_COUNT}); the costliest is ` +
        `rule_groups[${worst}] (${costs[worst]}: ${makeup(groups[worst] as RuleGroup)}). Simplify: use fewer rules, ` +
        'eq or starts_with instead of contains or ends_with, and fewer event rules with min_count',
    },
  ]
}
