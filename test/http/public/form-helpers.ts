import { sql } from 'drizzle-orm'
import { rawRows } from '../../../src/db/raw'
import type { TestApp } from '../../helpers/app'
import { BASE } from '../../helpers/app'

// Calls to a form's public endpoint as a browser or a site's script makes them, and reads of
// what a submission left behind.

export interface PublicCall {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  body: any
}

let calls = 0
/** A fresh address per call unless a test names one: only the rate-limit rows share an IP. */
const freshIp = () => `10.0.${Math.floor(++calls / 250)}.${calls % 250}`

export async function post(
  t: TestApp,
  formId: string,
  fields: Record<string, string>,
  o: { json?: boolean; ip?: string; path?: string } = {},
): Promise<PublicCall> {
  const json = o.json ?? true
  const res = await t.app.handle(
    new Request(`${BASE}${o.path ?? `/f/${formId}`}`, {
      method: 'POST',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        'x-forwarded-for': o.ip ?? freshIp(),
        'user-agent': 'FormTest/1.0',
      },
      body: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
    }),
  )
  const text = await res.text()
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, text, body }
}

export async function get(t: TestApp, path: string, ip = '203.0.113.7'): Promise<PublicCall> {
  const res = await t.app.handle(
    new Request(`${BASE}${path}`, { headers: { 'x-forwarded-for': ip, 'user-agent': 'FormTest/1.0' } }),
  )
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, body: null }
}

/** What the client holds for an address: contact, memberships, consents and confirmation messages. */
export async function stateOf(t: TestApp, clientId: string, email: string) {
  // Each ? takes the next argument (as bound parameters), on either store.
  const q = async <T>(text: string, ...args: (string | number)[]) => {
    const parts = text.split('?')
    const query = sql.join(
      parts.flatMap((p, i) => (i === parts.length - 1 ? [sql.raw(p)] : [sql.raw(p), sql`${args[i]}`])),
      sql``,
    )
    return await rawRows<T>(t.ctx.db, query)
  }
  const contact = (
    await q<{ id: string; status: string; first_name: string | null }>(
      'SELECT id, status, first_name FROM contacts WHERE client_id = ? AND lower(email) = lower(?)',
      clientId,
      email,
    )
  )[0]
  const id = contact?.id ?? ''
  return {
    contact,
    members: await q<{ list_id: string; status: string }>(
      'SELECT list_id, status FROM list_members WHERE contact_id = ? ORDER BY list_id',
      id,
    ),
    consents: await q<{
      action: string
      source: string
      form_id: string | null
      ip: string | null
      user_agent: string | null
      consent_text: string | null
      list_id: string | null
    }>(
      'SELECT action, source, form_id, ip, user_agent, consent_text, list_id FROM consents WHERE contact_id = ? ORDER BY seq',
      id,
    ),
    messages: await q<{
      to_address: string
      variables: string | null
      subject: string | null
      template_id: string | null
    }>(
      'SELECT m.to_address, CAST(p.variables AS TEXT) AS variables, p.subject, p.template_id FROM messages m JOIN message_payloads p ON p.message_seq = m.seq WHERE m.contact_id = ? ORDER BY m.seq',
      id,
    ),
  }
}

/** The path of the confirmation link in the n-th message queued for an address. */
export async function confirmPath(t: TestApp, clientId: string, email: string, n = -1): Promise<string> {
  const m = (await stateOf(t, clientId, email)).messages.at(n)
  const url = JSON.parse(m!.variables!).confirm_url as string
  return new URL(url).pathname
}
