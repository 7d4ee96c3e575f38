import { type Static, Type as t } from '@sinclair/typebox'
import { ClientPageQuery, CreateQuery, RecordId, strict } from '../verbs/schemas'

// What the domain verbs take: one schema per input, shared by every door.

const domainFields = { domain: t.String({ minLength: 1, maxLength: 253 }) }
const DomainFields = t.Object(domainFields, strict)
export type CreateDomainFields = Static<typeof DomainFields>

export const ListDomainsInput = ClientPageQuery

export const CreateDomainInput = t.Object({ ...CreateQuery.properties, ...domainFields }, strict)

export const DomainRef = t.Object({ id: RecordId }, strict)
