import { a } from './article'

// Ids are UUIDv7 (time-ordered), so ordering by id is ordering by creation.
// Webhook payloads use `<prefix>_<32 hex>`; both forms are accepted on input.

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const PREFIXED_RE = /^[a-z]{3}_[0-9a-f]{32}$/i

export const ID_PREFIXES = {
  client: 'cli',
  campaign: 'cmp',
  contact: 'con',
  list: 'lst',
  segment: 'seg',
  journey: 'jrn',
  sequence: 'seq',
  template: 'tpl',
  sender: 'snd',
  domain: 'dom',
  webhook: 'whk',
  message: 'msg',
  event: 'evt',
  reply: 'rpl',
  apiKey: 'key',
  form: 'frm',
} as const

export type IdKind = keyof typeof ID_PREFIXES

/** Each kind as named in an error message. */
const ID_NAMES: Record<IdKind, string> = {
  client: 'client',
  campaign: 'campaign',
  contact: 'contact',
  list: 'list',
  segment: 'segment',
  journey: 'journey',
  sequence: 'sequence',
  template: 'template',
  sender: 'sender',
  domain: 'domain',
  webhook: 'webhook',
  message: 'message',
  event: 'event',
  reply: 'reply',
  apiKey: 'API key',
  form: 'form',
}

/** The ways an id of this kind may be written, as parseId takes them: `cli_… or a UUID`. */
export function idForms(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_… or a UUID`
}

/** `a client id`, `an API key id`. */
export function anIdOf(kind: IdKind): string {
  return a(`${ID_NAMES[kind]} id`)
}

/**
 * The refusal of a value that is not an id at all: `must be a client id (cli_… or a UUID)`. One
 * text for every kind, so a message never names fewer forms than parseId accepts.
 */
export function notAnIdMessage(kind: IdKind): string {
  return `must be ${anIdOf(kind)} (${idForms(kind)})`
}

export function newId(): string {
  return Bun.randomUUIDv7()
}

/**
 * A UUIDv7 for the `n`th record made from the `seq`th of a sequence in millisecond `ms`: its 74
 * bits after the time hold `seq` (52 bits) then `n` (22), so records made in one millisecond,
 * by any process, sort by `seq`. (Bun.randomUUIDv7 counts up within a process only.)
 */
export function sequencedId(ms: number, seq: number, n: number): string {
  const value = (BigInt(seq) << 22n) | BigInt(n & 0x3fffff)
  const hex = (v: bigint, digits: number) => v.toString(16).padStart(digits, '0')
  const time = hex(BigInt(ms), 12)
  const randA = hex(value >> 62n, 3)
  const variant = hex(0b1000n | ((value >> 60n) & 3n), 1)
  const low = hex(value & ((1n << 60n) - 1n), 15)
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randA}-${variant}${low.slice(0, 3)}-${low.slice(3)}`
}

export function isUuid(value: string): boolean {
  return UUID_RE.test(value)
}

/** `cli_0193…` for a UUID. */
export function toPrefixedId(kind: IdKind, uuid: string): string {
  return `${ID_PREFIXES[kind]}_${uuid.replaceAll('-', '').toLowerCase()}`
}

/** Accepts a UUID or a prefixed id; returns the lower-case UUID, or null when it is neither. */
export function parseId(value: string): string | null {
  if (UUID_RE.test(value)) return value.toLowerCase()
  if (!PREFIXED_RE.test(value)) return null
  const hex = value.slice(4).toLowerCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Every string anywhere in a JSON value that reads as a record id, as its UUID: the candidates
 * a check may look up at once before it runs synchronously (a journey graph, segment rules).
 */
export function recordIdsIn(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    const id = parseId(value)
    if (id) out.add(id)
  } else if (Array.isArray(value)) for (const v of value) recordIdsIn(v, out)
  else if (value && typeof value === 'object') for (const v of Object.values(value)) recordIdsIn(v, out)
  return out
}
