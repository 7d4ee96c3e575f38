// templates.render-draft (the portal editor's live preview) renders unsaved text exactly as
// templates.preview renders the same text once saved, refuses what a save refuses (with each
// syntax error's field, line and column), and never enters the send path's compiled cache.
import { describe, expect, test } from 'bun:test'
import { withActor } from '../../src/context'
import { ServiceError } from '../../src/errors'
import { userActor } from '../../src/services/actors/actor'
import { compiledCacheSize } from '../../src/services/templates/render'
import { previewTemplateVerb, renderDraftTemplateVerb } from '../../src/services/templates/verbs'
import { invoke } from '../../src/services/verbs/invoke'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const viewer = withActor(
  t.ctx,
  userActor({ id: 'usr-viewer', role: 'viewer', clients: null, workspace: t.defaultClientId }),
  'test',
)

async function api(method: string, path: string, body?: unknown) {
  const r = await t.call(method, path, { key, body })
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}

async function refusal(run: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await run()
  } catch (err) {
    if (err instanceof ServiceError) return err
    throw err
  }
  throw new Error('expected a refusal')
}

describe('templates.render-draft', () => {
  test('the same answer as templates.preview for the same text, without caching the draft', async () => {
    const contact = await api('POST', '/api/v1/contacts', { email: 'd@example.com', first_name: 'Dee' })
    const content = {
      subject: 'Hi {{ contact.first_name }}',
      body_html: '<style>p{color:red}</style><p>{{ contact.first_name }} {{ contact.custom.plan }}</p>',
      body_text: null,
    }
    const saved = await api('POST', '/api/v1/templates', { name: 'Same', ...content })
    const preview = await invoke(previewTemplateVerb, viewer, { id: saved.id, contact_id: contact.id })
    const before = compiledCacheSize()
    const draft = await invoke(renderDraftTemplateVerb, viewer, {
      id: saved.id,
      channel: 'email',
      ...content,
      contact_id: contact.id,
    })
    expect(draft).toEqual(preview)
    expect(draft.missing_variables).toEqual(['contact.custom.plan'])
    expect(compiledCacheSize()).toBe(before)
  })

  test('syntax errors: each field with its line and column (422)', async () => {
    const saved = await api('POST', '/api/v1/templates', { name: 'Err', subject: 'S', body_text: 'T' })
    const err = await refusal(
      async () =>
        await invoke(renderDraftTemplateVerb, viewer, {
          id: saved.id,
          channel: 'email',
          subject: '{{ contact.first_name | nope }}',
          body_text: 'line one\n  {% endif %}',
        }),
    )
    expect(err.code).toBe('VALIDATION_FAILED')
    expect(err.details).toMatchObject([
      { field: 'subject', line: 1, column: 1 },
      { field: 'body_text', line: 2, column: 3 },
    ])
  })

  test('SMS info for an SMS draft; the size limits of a save', async () => {
    const saved = await api('POST', '/api/v1/templates', { name: 'Sms', channel: 'sms', body_text: 'x' })
    const draft = await invoke(renderDraftTemplateVerb, viewer, {
      id: saved.id,
      channel: 'sms',
      body_text: 'é'.repeat(71),
    })
    expect(draft.sms).toEqual({ length: 71, segments: 1, encoding: 'GSM-7' })
    const big = await refusal(
      async () =>
        await invoke(renderDraftTemplateVerb, viewer, {
          id: saved.id,
          channel: 'sms',
          body_text: 'x'.repeat(128 * 1024 + 1),
        }),
    )
    expect(big.code).toBe('VALIDATION_FAILED')
    expect(JSON.stringify(big.details)).toContain('body_text')
  })
})
