// Records whose every free-text field is an XSS probe, made through the REST API in the Default
// workspace (the one the portal opens on), so the portal's pages show hostile text wherever they
// show names. A page that runs any of it sets `window.__xss` or opens a dialog.
import { expect } from 'bun:test'
import type { Page } from 'playwright-core'
import type { TestApp } from './app'
import { eventually } from './receiver'

export const XSS = {
  /** A contact's first name: an element with an event handler. */
  name: '<img src=x onerror=alert(1)>',
  /** A company: a script element. */
  company: '<script>window.__xss=1</script>',
  /** Breaks out of a quoted attribute if values are not escaped there. */
  attribute: '"><svg onload=alert(2)>',
  /** A liquid/handlebars-looking value must stay text too. */
  template: '{{ 7 * 7 }}</title><script>window.__xss=3</script>',
} as const

export interface HostileData {
  contactId: string
  contactEmail: string
  listId: string
  segmentId: string
  templateId: string
  campaignId: string
  senderId: string
  domainId: string
  webhookId: string
  sequenceId: string
}

/** Creates one of each record with hostile names (and a domain and a webhook) and sends a capture campaign to the contact (needs a running sender: `usePortal({ workers: true })`). */
export async function seedHostileData(herald: TestApp): Promise<HostileData> {
  const key = await herald.key({ scopes: ['admin:*'], clientId: herald.defaultClientId, name: XSS.attribute })
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await herald.call(method, path, { key, body })
    if (r.status !== 200) throw new Error(`seeding: ${method} ${path} → ${r.status} ${r.text}`)
    return r.body.data
  }
  // A second workspace, named to break out of an attribute: every page's header lists it.
  const client = await herald.call('POST', '/api/v1/clients', { body: { name: XSS.attribute } })
  if (client.status !== 200)
    throw new Error(`seeding: POST /api/v1/clients → ${client.status} ${client.text}`)
  const list = await call('POST', '/api/v1/lists', { name: XSS.name, description: XSS.company })
  const contactEmail = 'xss.probe@example.com'
  const contact = await call('POST', '/api/v1/contacts', {
    email: contactEmail,
    first_name: XSS.name,
    last_name: XSS.attribute,
    company: XSS.company,
    custom_fields: { [XSS.attribute]: XSS.company, note: XSS.template },
    list_ids: [list.id],
  })
  const segment = await call('POST', '/api/v1/segments', {
    name: XSS.company,
    rule_groups: [{ match: 'all', rules: [{ field: 'company', operator: 'contains', value: XSS.company }] }],
  })
  const template = await call('POST', '/api/v1/templates', {
    name: XSS.name,
    subject: `Hi ${XSS.attribute}`,
    body_html: `<p onclick="window.__xss=4">Hi {{ contact.first_name }}</p><script>window.__xss=5</script>`,
    body_text: 'Hi {{ contact.first_name }}',
  })
  const sender = await call('POST', '/api/v1/senders', {
    from_email: 'news@example.com',
    from_name: XSS.name,
  })
  const campaign = await call('POST', '/api/v1/campaigns', {
    name: XSS.company,
    list_id: list.id,
    subject: 'Hello {{ contact.first_name }}',
    body_html: `<html><body><p>Hi {{ contact.first_name }} of {{ contact.company }}</p><img src=x onerror="window.__xss=6"><script>window.__xss=7</script></body></html>`,
  })
  await call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  await eventually(async () =>
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).status as string).toBe('sent'),
  )
  // An active sequence with the contact in it (its first step a day away: nothing sends).
  const sequence = await call('POST', '/api/v1/sequences', {
    name: XSS.name,
    steps: [{ subject: `Hi ${XSS.attribute}`, body_text: XSS.company, delay: 'P1D' }],
  })
  await call('POST', `/api/v1/sequences/${sequence.id}/activate`)
  await call('POST', `/api/v1/sequences/${sequence.id}/enroll`, { contact_ids: [contact.id] })
  // After the send, so neither receives anything (no delivery to a host that does not exist).
  const domain = await call('POST', '/api/v1/domains', { domain: 'mail.example.com' })
  const webhook = await call('POST', '/api/v1/webhooks', {
    url: 'https://hooks.example.com/in?probe=%22%3E%3Csvg%20onload%3Dalert(2)%3E',
    events: ['reply.received'],
  })
  // An agent waiting for approval (/admin/agents lists it; the crawl reaches its review page).
  const agent = await herald.call('POST', '/agent/auth/register', {
    key: null,
    body: { client_name: XSS.name, identity_type: 'anonymous', scopes: ['contacts:read', 'lists:read'] },
  })
  if (agent.status !== 200)
    throw new Error(`seeding: POST /agent/auth/register → ${agent.status} ${agent.text}`)
  return {
    domainId: domain.id,
    webhookId: webhook.id,
    contactId: contact.id,
    contactEmail,
    listId: list.id,
    segmentId: segment.id,
    templateId: template.id,
    campaignId: campaign.id,
    senderId: sender.id,
    sequenceId: sequence.id,
  }
}

/**
 * Fails (naming the page) when hostile text became markup in the page: `window.__xss` set, an
 * inline event handler attribute anywhere (the portal's CSP forbids them, so the portal itself
 * never writes one), or the probes' elements. Dialogs are caught by expectCleanPage.
 */
export async function expectNoInjectedMarkup(page: Page): Promise<void> {
  const found = await page.evaluate(() => {
    const w = window as unknown as { __xss?: unknown }
    const hits: string[] = []
    if (w.__xss !== undefined) hits.push(`window.__xss = ${String(w.__xss)}`)
    for (const el of Array.from(document.querySelectorAll('*'))) {
      for (const attr of Array.from(el.attributes))
        if (/^on/i.test(attr.name)) hits.push(`<${el.localName} ${attr.name}="${attr.value}">`)
      if (el.localName === 'script' && /__xss/.test(el.textContent ?? ''))
        hits.push(`<script>${el.textContent}`)
    }
    return hits
  })
  if (found.length) throw new Error(`${page.url()}: hostile text became markup\n  ${found.join('\n  ')}`)
}
