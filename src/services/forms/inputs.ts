import { type Static, Type as t } from '@sinclair/typebox'
import { FORM_STATUSES } from '../../lib/enums'
import { ClientPageQuery, idRef, Name, Nullable, RecordId, strict, Text } from '../verbs/schemas'

// What the form verbs take: one schema per input, shared by every door.

/** The contact fields a form may ask for; `custom.<key>` asks for a custom field. */
export const STANDARD_FORM_FIELDS = ['email', 'first_name', 'last_name', 'company', 'phone'] as const
export const CUSTOM_FIELD_PATTERN = /^custom\.[A-Za-z0-9_-]{1,64}$/

const Url = t.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  'x-format-message': 'must be an absolute URL',
  description: 'http or https',
})

const formFields = {
  name: Name,
  list_ids: t.Array(idRef('list'), { minItems: 1, maxItems: 20, uniqueItems: true }),
  fields: t.Optional(
    t.Array(t.String({ maxLength: 72 }), {
      maxItems: 20,
      description: 'email (always asked), first_name, last_name, company, phone, custom.<key>',
    }),
  ),
  double_opt_in: t.Optional(t.Boolean({ description: 'Default true: a confirmation message is sent' })),
  confirmation_template_id: t.Optional(Nullable(idRef('template'))),
  consent_text: Text(2000),
  success_url: t.Optional(Nullable(Url)),
  confirmed_url: t.Optional(Nullable(Url)),
  status: t.Optional(t.Union(FORM_STATUSES.map((s) => t.Literal(s)))),
}
const FormFields = t.Object(formFields, strict)
export type FormInput = Static<typeof FormFields>
export type FormPatch = Partial<FormInput>

export const ListFormsInput = ClientPageQuery

export const CreateFormInput = t.Object({ client_id: t.Optional(t.String()), ...formFields }, strict)

export const UpdateFormInput = t.Object(
  {
    id: RecordId,
    ...formFields,
    name: t.Optional(formFields.name),
    list_ids: t.Optional(formFields.list_ids),
    consent_text: t.Optional(formFields.consent_text),
  },
  strict,
)

export const FormRef = t.Object({ id: RecordId }, strict)
