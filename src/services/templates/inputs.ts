import { type Static, Type as t } from '@sinclair/typebox'
import { TEMPLATE_CHANNELS } from '../../lib/enums'
import { ClientPageQuery, CreateQuery, Name, Nullable, RecordId, strict, Text } from '../verbs/schemas'

// What the template verbs take: one schema per input, shared by every door.

export const TemplateChannel = t.Union(TEMPLATE_CHANNELS.map((c) => t.Literal(c)))

export const templateFields = {
  name: Name,
  channel: t.Optional(TemplateChannel),
  subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
  body_html: t.Optional(Nullable(Text(512 * 1024))),
  body_text: t.Optional(Nullable(Text(128 * 1024))),
}
const TemplateFields = t.Object(templateFields, strict)
export type TemplateInput = Static<typeof TemplateFields>

export const ListTemplatesInput = ClientPageQuery

export const CreateTemplateInput = t.Object({ ...CreateQuery.properties, ...templateFields }, strict)

export const UpdateTemplateInput = t.Object({ id: RecordId, ...t.Partial(TemplateFields).properties }, strict)

export const TemplateRef = t.Object({ id: RecordId }, strict)

const Members = t.Record(t.String(), t.Unknown())
const previewFields = {
  contact_id: t.Optional(t.String({ description: 'A contact of the template’s client' })),
  sample: t.Optional(
    t.Object(
      {
        contact: t.Optional(
          t.Record(t.String(), t.Unknown(), {
            description:
              'A sample contact: the members of a contact (first_name, custom_fields, …) or of the variables (custom, …)',
          }),
        ),
        client: t.Optional(Members),
        campaign: t.Optional(Members),
        unsubscribe_url: t.Optional(t.String({ maxLength: 2048 })),
      },
      strict,
    ),
  ),
}
export const PreviewTemplateInput = t.Object({ id: RecordId, ...previewFields }, strict)
const PreviewFields = t.Object(previewFields, strict)
export type PreviewInput = Static<typeof PreviewFields>

/** An unsaved draft of a template, for the portal editor's live preview (templates.render-draft). */
export const RenderDraftInput = t.Object(
  {
    id: RecordId,
    channel: TemplateChannel,
    subject: templateFields.subject,
    body_html: templateFields.body_html,
    body_text: templateFields.body_text,
    contact_id: previewFields.contact_id,
  },
  strict,
)
export type RenderDraftInput = Static<typeof RenderDraftInput>
