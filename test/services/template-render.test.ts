import { describe, expect, test } from 'bun:test'
import { compileTemplate, type RenderableTemplate, renderTemplate } from '../../src/services/templates/render'

let n = 0
const template = (parts: Partial<RenderableTemplate>): RenderableTemplate => ({
  id: `tpl-${++n}`,
  updatedAt: 1,
  channel: 'email',
  subject: null,
  bodyHtml: null,
  bodyText: null,
  ...parts,
})

describe('renderTemplate (the per-recipient call of the campaign engine)', () => {
  test('compiles once per template version', () => {
    const t = template({ bodyText: 'Hi {{ contact.first_name }}' })
    expect(compileTemplate(t)).toBe(compileTemplate(t))
    expect(compileTemplate({ ...t, updatedAt: t.updatedAt + 1 })).not.toBe(compileTemplate(t))
  })

  test('missing variables: loops and filters as written; assigned and looped variables count', () => {
    const t = template({
      bodyText:
        '{% for item in contact.custom.items %}{{ item.name }};{% endfor %}{{ contact.last_name | upcase }}{% assign x = "a" %}{{ x }}{{ "lit" }}',
    })
    const missing = new Set<string>()
    const out = renderTemplate(t, { contact: { custom: { items: [{ name: 'A' }, {}] } } }, missing)
    expect(out.body_text).toBe('A;;a' + 'lit')
    expect([...missing].sort()).toEqual(['contact.last_name', 'item.name'])
  })

  test('without a collector nothing is tracked and rendering is lenient', () => {
    const out = renderTemplate(template({ subject: 'Hi {{ nobody.here }}!' }), { contact: {} })
    expect(out.subject).toBe('Hi !')
  })

  test('media queries stay in a <style> block; plain rules are inlined', () => {
    const html =
      '<html><head><style>p{color:red} @media (max-width:600px){p{color:blue}}</style></head><body><p>{{ contact.first_name }}</p></body></html>'
    const out = renderTemplate(template({ bodyHtml: html }), { contact: { first_name: 'Ann' } })
    expect(out.body_html).toContain('<p style="color: red;">Ann</p>')
    expect(out.body_html).toContain('@media (max-width:600px)')
  })

  test('Liquid control flow around table rows survives CSS inlining', () => {
    const html =
      '<style>td{padding:4px}</style><table>{% for i in contact.custom.rows %}<tr><td>{{ i }}</td></tr>{% endfor %}</table>'
    const out = renderTemplate(template({ bodyHtml: html }), { contact: { custom: { rows: [1, 2] } } })
    expect(out.body_html).toBe(
      '<table><tr><td style="padding: 4px;">1</td></tr><tr><td style="padding: 4px;">2</td></tr></table>',
    )
  })

  test('an explicit body_text wins over the derived one; non-email channels ignore html', () => {
    const both = renderTemplate(template({ bodyHtml: '<p>HTML</p>', bodyText: 'TEXT' }), { contact: {} })
    expect(both.body_text).toBe('TEXT')
    const sms = renderTemplate(template({ channel: 'sms', bodyText: 'Code {{ contact.custom.code }}' }), {
      contact: { custom: { code: 42 } },
    })
    expect(sms).toEqual({ subject: null, body_html: null, body_text: 'Code 42' })
  })
})
