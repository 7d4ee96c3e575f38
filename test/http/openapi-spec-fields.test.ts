import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

// /openapi.json against the spec's "Resources and their fields" and inputs: every field the spec
// names is in the component with the spec's type and format (uuid, email, uri, date-time), and
// nullable exactly where the spec says so. One row per field, so a missing format fails by name.
// The acceptance review found Sender.from_email (email) and Webhook.url (uri) without theirs.

// biome-ignore lint/suspicious/noExplicitAny: the document is walked freely
type Json = Record<string, any>

const t = await createTestApp()
const doc: Json = (await t.call('GET', '/openapi.json', { key: null })).body

const deref = (s: Json): Json => (s?.$ref ? deref(doc.components.schemas[s.$ref.split('/').pop()]) : s)

/** A property's type, format and nullability, through $refs and `anyOf [X, null]`. */
function describeProperty(schemaName: string, field: string) {
  const schema = deref(doc.components.schemas[schemaName])
  const prop = schema?.properties?.[field]
  if (!prop) return undefined
  const variants: Json[] = (prop.anyOf ?? [prop]).map(deref)
  const nonNull = variants.filter((v) => v.type !== 'null')
  const main = nonNull[0] ?? {}
  return {
    type: main.type as string | undefined,
    format: main.format as string | undefined,
    nullable: variants.length > nonNull.length,
    enum: main.enum as string[] | undefined,
    required: (schema.required ?? []).includes(field) as boolean,
  }
}

// [schema, field, type, format?, nullable?]
type Row = [string, string, string, string | null, boolean]
const resources: Row[] = [
  ['Client', 'id', 'string', 'uuid', false],
  ['Client', 'name', 'string', null, false],
  ['Client', 'status', 'string', null, false],
  ['Client', 'created_at', 'string', 'date-time', false],
  // An extension (DESIGN §7 "Extra fields"), like Contact's: the zone of contacts without one.
  ['Client', 'timezone', 'string', null, true],
  ['Campaign', 'id', 'string', 'uuid', false],
  ['Campaign', 'name', 'string', null, false],
  ['Campaign', 'status', 'string', null, false],
  ['Campaign', 'subject', 'string', null, true],
  ['Campaign', 'channel', 'string', null, false],
  ['Campaign', 'scheduled_at', 'string', 'date-time', true],
  ['Campaign', 'total_recipients', 'integer', null, true],
  ['Campaign', 'total_sent', 'integer', null, true],
  ['Campaign', 'created_at', 'string', 'date-time', false],
  ['Contact', 'id', 'string', 'uuid', false],
  ['Contact', 'email', 'string', 'email', false],
  ['Contact', 'first_name', 'string', null, true],
  ['Contact', 'last_name', 'string', null, true],
  ['Contact', 'company', 'string', null, true],
  ['Contact', 'phone', 'string', null, true],
  ['Contact', 'status', 'string', null, false],
  ['Contact', 'created_at', 'string', 'date-time', false],
  ['ContactList', 'id', 'string', 'uuid', false],
  ['ContactList', 'name', 'string', null, false],
  ['ContactList', 'member_count', 'integer', null, false],
  ['ContactList', 'created_at', 'string', 'date-time', false],
  ['Segment', 'id', 'string', 'uuid', false],
  ['Segment', 'name', 'string', null, false],
  ['Segment', 'rule_groups', 'array', null, false],
  ['Segment', 'estimated_size', 'integer', null, true],
  ['Journey', 'id', 'string', 'uuid', false],
  ['Journey', 'name', 'string', null, false],
  ['Journey', 'status', 'string', null, false],
  ['Journey', 'nodes', 'array', null, false],
  ['Journey', 'created_at', 'string', 'date-time', false],
  ['Sequence', 'id', 'string', 'uuid', false],
  ['Sequence', 'name', 'string', null, false],
  ['Sequence', 'status', 'string', null, false],
  ['Sequence', 'step_count', 'integer', null, false],
  ['Template', 'id', 'string', 'uuid', false],
  ['Template', 'name', 'string', null, false],
  ['Template', 'channel', 'string', null, false],
  ['Template', 'subject', 'string', null, true],
  ['Template', 'created_at', 'string', 'date-time', false],
  ['Sender', 'id', 'string', 'uuid', false],
  ['Sender', 'from_email', 'string', 'email', false],
  ['Sender', 'from_name', 'string', null, false],
  ['Sender', 'verified', 'boolean', null, false],
  ['Domain', 'id', 'string', 'uuid', false],
  ['Domain', 'domain', 'string', null, false],
  ['Domain', 'dkim_verified', 'boolean', null, false],
  ['Domain', 'spf_verified', 'boolean', null, false],
  ['Domain', 'dmarc_verified', 'boolean', null, false],
  ['Webhook', 'id', 'string', 'uuid', false],
  ['Webhook', 'url', 'string', 'uri', false],
  ['Webhook', 'events', 'array', null, false],
  ['Webhook', 'active', 'boolean', null, false],
  ['Health', 'status', 'string', null, false],
  ['Health', 'version', 'string', null, false],
  ['Health', 'timestamp', 'string', 'date-time', false],
  ...['sent', 'delivered', 'opened', 'clicked', 'replied', 'bounced', 'unsubscribed'].map(
    (f): Row => ['CampaignStats', f, 'integer', null, false],
  ),
  ['CampaignStats', 'open_rate', 'number', null, false],
  ['CampaignStats', 'click_rate', 'number', null, false],
]

describe('resource fields: present, required, typed as the spec says', () => {
  for (const [schema, field, type, format, nullable] of resources)
    test(`${schema}.${field}: ${type}${format ? ` (${format})` : ''}${nullable ? ', nullable' : ''}`, () => {
      const p = describeProperty(schema, field)
      expect(p).toBeDefined()
      expect(p!.required).toBe(true)
      expect(p!.type).toBe(type)
      if (format) expect(p!.format).toBe(format)
      expect(p!.nullable).toBe(nullable)
    })
})

// [schema, field, required?, type, format?]
type InputRow = [string, string, boolean, string, string | null]
const inputs: InputRow[] = [
  ['ClientInput', 'name', true, 'string', null],
  ['ClientInput', 'industry', false, 'string', null],
  ['ClientInput', 'timezone', false, 'string', null],
  ['CampaignInput', 'name', true, 'string', null],
  ['CampaignInput', 'subject', false, 'string', null],
  ['CampaignInput', 'channel', false, 'string', null],
  ['CampaignInput', 'template_id', false, 'string', null],
  ['CampaignInput', 'list_id', false, 'string', null],
  ['CampaignInput', 'scheduled_at', false, 'string', 'date-time'],
  ['ContactInput', 'email', true, 'string', 'email'],
  ['ContactInput', 'first_name', false, 'string', null],
  ['ContactInput', 'custom_fields', false, 'object', null],
  ['ListInput', 'name', true, 'string', null],
  ['ListInput', 'description', false, 'string', null],
  ['SegmentInput', 'name', true, 'string', null],
  ['SegmentInput', 'rule_groups', true, 'array', null],
  ['JourneyInput', 'name', true, 'string', null],
  ['JourneyInput', 'nodes', false, 'array', null],
  ['TemplateInput', 'name', true, 'string', null],
  ['TemplateInput', 'channel', false, 'string', null],
  ['WebhookInput', 'url', true, 'string', 'uri'],
  ['WebhookInput', 'events', true, 'array', null],
  ['AddSuppressionInput', 'email', true, 'string', 'email'],
  ['AddSuppressionInput', 'reason', false, 'string', null],
  ['LaunchCampaignInput', 'confirm', true, 'boolean', null],
  ['SearchContactsInput', 'query', true, 'string', null],
  ['SearchContactsInput', 'limit', false, 'integer', null],
  ['EnrollJourneyInput', 'contact_ids', false, 'array', null],
  ['EnrollJourneyInput', 'segment_id', false, 'string', null],
]

describe('inputs: members, required ones, types', () => {
  for (const [schema, field, required, type, format] of inputs)
    test(`${schema}.${field}${required ? ' (required)' : ''}: ${type}${format ? ` (${format})` : ''}`, () => {
      const p = describeProperty(schema, field)
      expect(p).toBeDefined()
      expect(p!.required).toBe(required)
      expect(p!.type).toBe(type)
      if (format) expect(p!.format).toBe(format)
    })
  test('the enums the spec lists', () => {
    expect(describeProperty('Campaign', 'status')!.enum).toEqual(
      expect.arrayContaining(['draft', 'scheduled', 'sending', 'sent', 'paused', 'failed', 'cancelled']),
    )
    expect(describeProperty('Journey', 'status')!.enum).toEqual(['draft', 'active', 'paused', 'archived'])
    expect(describeProperty('CampaignInput', 'channel')!.enum).toEqual(
      expect.arrayContaining(['email', 'sms', 'voice']),
    )
    const events = deref(doc.components.schemas.WebhookInput).properties.events
    expect(deref(events.items).enum.toSorted()).toEqual(
      [
        'campaign.complete',
        'contact.unsubscribed',
        'email.bounced',
        'email.clicked',
        'email.delivered',
        'email.opened',
        'reply.received',
      ].toSorted(),
    )
    expect(events.minItems).toBe(1)
    expect(describeProperty('SearchContactsInput', 'limit')).toBeDefined()
    expect(deref(doc.components.schemas.SearchContactsInput).properties.limit.maximum).toBe(200)
  })
})
