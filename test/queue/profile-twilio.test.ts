import { afterAll, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { closeProviders, createProviders } from '../../src/channels/registry'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp } from '../helpers/app'
import { tenant } from '../helpers/campaign'
import { runSql } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'

// SMS per client: two clients, each with its own Twilio account in its sending profile, against
// a local server speaking Twilio's Messages API that checks each account's credentials. Both
// campaigns run at once; each account receives only its client's texts, from its own number,
// while the instance's provider (capture) sends none. Their status callbacks name the client
// and are checked with that client's token.

const ACCOUNTS: Record<string, string> = {
  AC00000000000000000000000000000001: 'token-one',
  AC00000000000000000000000000000002: 'token-two',
}
const posted: { account: string; form: URLSearchParams }[] = []
const twilio = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const m = /^\/2010-04-01\/Accounts\/(\w+)\/Messages\.json$/.exec(new URL(req.url).pathname)
    const account = m?.[1] ?? ''
    if (req.method !== 'POST' || !ACCOUNTS[account])
      return Response.json({ code: 20404, message: 'not found' }, { status: 404 })
    if (req.headers.get('authorization') !== `Basic ${btoa(`${account}:${ACCOUNTS[account]}`)}`)
      return Response.json({ code: 20003, message: 'Authenticate' }, { status: 401 })
    posted.push({ account, form: new URLSearchParams(await req.text()) })
    return Response.json(
      { sid: `SM${String(posted.length).padStart(32, '0')}`, status: 'queued' },
      { status: 201 },
    )
  },
})
afterAll(() => twilio.stop(true))

const t = await createTestApp()
const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
const worker = startSendWorker(t.ctx, sendDeps, { providers, pollMs: 10 })
afterAll(async () => {
  await worker.stop()
  await closeProviders(providers)
})

/** A client whose SMS go through `account`, with a campaign to `phones`. */
async function smsClient(name: string, account: string, from: string, phones: string[]) {
  const { clientId, call } = await tenant(t, name)
  const put = await t.call('PUT', `/api/v1/clients/${clientId}/sending`, {
    body: {
      sms: {
        provider: 'twilio',
        twilio_account_sid: account,
        twilio_auth_token: ACCOUNTS[account],
        twilio_base_url: `http://127.0.0.1:${twilio.port}`,
        from,
      },
    },
  })
  expect(put.status).toBe(200)
  const list = await call('POST', '/api/v1/lists', { name: 'Phones' })
  for (const [i, phone] of phones.entries())
    await call('POST', '/api/v1/contacts', { email: `${name}${i}@example.com`, phone, list_ids: [list.id] })
  const campaign = await call('POST', '/api/v1/campaigns', {
    name: 'SMS',
    channel: 'sms',
    list_id: list.id,
    body_text: `Hi from ${name}`,
  })
  return { clientId, call, campaign }
}

/** Posts a status report to `url` signed with `token`, as Twilio does. */
const report = (url: string, params: Record<string, string>, token: string) => {
  const payload = Object.keys(params)
    .sort()
    .map((k) => k + params[k])
    .join('')
  return t.app.handle(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': createHmac('sha1', token)
          .update(url + payload)
          .digest('base64'),
      },
      body: new URLSearchParams(params).toString(),
    }),
  )
}

test('two clients with their own Twilio accounts: each account gets only its client texts', async () => {
  const one = await smsClient('one', 'AC00000000000000000000000000000001', '+14155550101', [
    '+14155550111',
    '+14155550112',
  ])
  const two = await smsClient('two', 'AC00000000000000000000000000000002', '+14155550102', ['+14155550121'])
  await Promise.all(
    [one, two].map((c) => c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })),
  )
  await eventually(async () => {
    for (const c of [one, two])
      expect((await c.call('GET', `/api/v1/campaigns/${c.campaign.id}`)).status).toBe('sent')
  })
  const by = (account: string) =>
    posted
      .filter((p) => p.account === account)
      .map((p) => [p.form.get('To'), p.form.get('From'), p.form.get('Body')])
      .sort()
  expect(by('AC00000000000000000000000000000001')).toEqual([
    ['+14155550111', '+14155550101', 'Hi from one'],
    ['+14155550112', '+14155550101', 'Hi from one'],
  ])
  expect(by('AC00000000000000000000000000000002')).toEqual([['+14155550121', '+14155550102', 'Hi from two']])
  const msgs = await one.call('GET', `/api/v1/messages?campaign_id=${one.campaign.id}`)
  expect(msgs.map((m: { provider: string }) => m.provider)).toEqual(['twilio', 'twilio'])

  // A delivery report for client one's message: its URL names the client; only its token signs it.
  const sent = posted.find((p) => p.form.get('To') === '+14155550111')!
  const url = sent.form.get('StatusCallback')!
  expect(url).toBe(`http://localhost:8080/api/v1/inbound/twilio/status?client=${one.clientId}`)
  const sid = msgs.find((m: { to: string }) => m.to === '+14155550111').provider_message_id
  const params = { MessageSid: sid, MessageStatus: 'delivered' }
  expect((await report(url, params, 'token-two')).status).toBe(403)
  expect((await report(url, params, 'token-one')).status).toBe(204)
  const after = await one.call('GET', `/api/v1/messages?campaign_id=${one.campaign.id}`)
  expect(after.find((m: { to: string }) => m.to === '+14155550111').status).toBe('delivered')
})

test('a profile whose secret no longer decrypts fails its messages with the reason; the others send', async () => {
  const broken = await smsClient('broken', 'AC00000000000000000000000000000001', '+14155550103', [
    '+14155550131',
  ])
  const fine = await smsClient('fine', 'AC00000000000000000000000000000002', '+14155550104', ['+14155550141'])
  // As after the instance key changed: the stored token is unreadable.
  await runSql(
    t,
    t.ctx.store.dialect === 'postgres'
      ? sql`UPDATE sending_profiles SET profile = jsonb_set(profile, '{sms,twilio_auth_token}', '"v1:x:y:z"') WHERE client_id = ${broken.clientId}`
      : sql`UPDATE sending_profiles SET profile = json_set(profile, '$.sms.twilio_auth_token', 'v1:x:y:z') WHERE client_id = ${broken.clientId}`,
  )
  for (const c of [broken, fine])
    await c.call('POST', `/api/v1/campaigns/${c.campaign.id}/launch`, { confirm: true })
  await eventually(async () => {
    const [m] = await broken.call('GET', `/api/v1/messages?campaign_id=${broken.campaign.id}`)
    expect(m).toMatchObject({ status: 'failed' })
    expect(m.error).toStartWith('sending account: ')
    expect((await fine.call('GET', `/api/v1/campaigns/${fine.campaign.id}`)).status).toBe('sent')
  })
  expect(posted.some((p) => p.form.get('To') === '+14155550131')).toBe(false)
})
