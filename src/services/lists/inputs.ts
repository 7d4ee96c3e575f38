import { type Static, Type as t } from '@sinclair/typebox'
import { LIST_OPT_INS } from '../../lib/enums'
import { Name, Nullable, pageQueryMembers, RecordId, strict, Text } from '../verbs/schemas'

// What the list verbs take: one schema per input, shared by every door.

/** How people join the list and whether the preference centre offers it. */
const listOptions = {
  opt_in: t.Optional(
    t.Union(
      LIST_OPT_INS.map((v) => t.Literal(v)),
      { description: '`double`: people who subscribe through a form confirm by e-mail first' },
    ),
  ),
  public: t.Optional(t.Boolean({ description: 'Offered in the preference centre' })),
  public_name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 200 }))),
}

export const ListListsInput = t.Object({ ...pageQueryMembers, client_id: t.Optional(t.String()) }, strict)

export const CreateListInput = t.Object(
  {
    client_id: t.Optional(t.String()),
    name: Name,
    // Nullable in the answer, so null is taken as "none" (clients send unset members as null).
    description: t.Optional(Nullable(Text(2000))),
    ...listOptions,
  },
  strict,
)
export type ListFields = Omit<Static<typeof CreateListInput>, 'client_id'>

export const UpdateListInput = t.Object(
  {
    id: RecordId,
    name: t.Optional(Name),
    description: t.Optional(Nullable(Text(2000))),
    ...listOptions,
  },
  strict,
)
export type ListPatch = Omit<Static<typeof UpdateListInput>, 'id'>

export const ListRef = t.Object({ id: RecordId }, strict)

export const ListMembersInput = t.Object({ id: RecordId, ...pageQueryMembers }, strict)

export const ListContactIdsInput = t.Object(
  {
    id: RecordId,
    contact_ids: t.Array(t.String({ format: 'uuid' }), { minItems: 1, maxItems: 10_000 }),
  },
  strict,
)

export const AddListContactsInput = t.Object(
  {
    ...ListContactIdsInput.properties,
    double_opt_in: t.Optional(
      t.Boolean({ description: 'Added unconfirmed, and each is sent a confirmation message' }),
    ),
  },
  strict,
)
