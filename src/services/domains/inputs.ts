import { type Static, Type as t } from '@sinclair/typebox'
import { ClientPageQuery, CreateQuery, RecordId, strict } from '../verbs/schemas'

// What the domain verbs take: one schema per input, shared by every door.

const domainFields = { domain: t.String({ minLength: 1, maxLength: 253 }) }
const DomainFields = t.Object(domainFields, strict)
export type CreateDomainFields = Static<typeof DomainFields>

export const ListDomainsInput = ClientPageQuery

// The portal dashboard's list: `verified` is a filter the spec's GET /domains does not name, so
// it is a verb of its own that no REST operation (nor MCP tool) points at.
export const FilterDomainsInput = t.Object(
  {
    ...ClientPageQuery.properties,
    verified: t.Optional(t.Boolean({ description: 'true: status verified; false: pending or broken' })),
  },
  strict,
)
export type ListDomainsQuery = Static<typeof FilterDomainsInput>

export const CreateDomainInput = t.Object({ ...CreateQuery.properties, ...domainFields }, strict)

export const DomainRef = t.Object({ id: RecordId }, strict)

const domainPatch = {
  warmup: t.Optional(
    t.Boolean({ description: 'false: no warm-up cap (a domain that arrives with its reputation)' }),
  ),
}
const DomainPatchFields = t.Object(domainPatch, strict)
export type DomainPatch = Static<typeof DomainPatchFields>

export const UpdateDomainInput = t.Object({ id: RecordId, ...domainPatch }, strict)
