import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ProviderError } from '../../src/channels/types'
import { rawRows, rawRun } from '../../src/db/raw'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { eventually } from '../helpers/receiver'
import { allChannels, recordingProvider, startTestSender } from '../helpers/sender'

const setup = campaignTenant
// Tests here make up to 150 contacts through the API before sending: seconds on a busy machine.
setDefaultTimeout(15_000)

// On PostgreSQL `data` is jsonb and arrives parsed.
const events = async (t: TestApp, campaignId: string, type: string) =>
  (
    await rawRows<{ data: unknown }>(
      t.ctx.db,
      sql`SELECT data FROM events WHERE campaign_id = ${campaignId} AND type = ${type} ORDER BY seq`,
    )
  ).map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data))

describe('a campaign through the capture provider', async () => {
  const t = await createTestApp()
  const provider = recordingProvider()
  startTestSender(t, provider)

  test('every subscribed recipient gets one personalised message; the rest are skipped; sent + campaign.complete', async () => {
    const emails = [
      'ann@example.com',
      'bob@example.com',
      'cy@example.com',
      'dee@example.com',
      'eve@example.com',
      'fay@example.com',
    ]
    const s = await setup(t, emails)
    await s.call('PATCH', `/api/v1/contacts/${s.contacts['cy@example.com']}`, { status: 'unsubscribed' })
    await s.call('PATCH', `/api/v1/contacts/${s.contacts['dee@example.com']}`, { status: 'blocked' })
    await s.call('POST', '/api/v1/suppressions', { email: 'EVE@example.com' })
    await rawRun(
      t.ctx.db,
      sql`UPDATE contacts SET status = 'bounced' WHERE id = ${s.contacts['fay@example.com']!}`,
    )

    const launched = await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    expect(launched).toMatchObject({ status: 'sending', total_recipients: 6, accepted: true })
    await eventually(async () => expect(await s.status()).toBe('sent'))

    const mine = provider.sent.filter((m) => m.clientId === s.clientId)
    expect(mine.map((m) => m.to).sort()).toEqual(['ann@example.com', 'bob@example.com'])
    const ann = mine.find((m) => m.to === 'ann@example.com')!
    if (ann.channel !== 'email') throw new Error('email expected')
    expect(ann.subject).toBe('Hello P0')
    expect(ann.headers['List-Unsubscribe']).toMatch(/^<http:\/\/localhost:8080\/u\/[\w-]+\.[\w-]+>$/)
    expect(ann.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
    expect(ann.messageId).toBe(`<${ann.id}@herald.localhost>`)

    const msgs = (await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}&limit=200`)) as {
      to: string
      status: string
      skip_reason: string | null
    }[]
    const byTo = Object.fromEntries(msgs.map((m) => [m.to, [m.status, m.skip_reason]]))
    expect(byTo).toEqual({
      'ann@example.com': ['delivered', null],
      'bob@example.com': ['delivered', null],
      'cy@example.com': ['skipped', 'contact_unsubscribed'],
      'dee@example.com': ['skipped', 'contact_blocked'],
      'eve@example.com': ['skipped', 'suppressed'],
      'fay@example.com': ['skipped', 'contact_bounced'],
    })

    const stats = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(stats).toMatchObject({ sent: 2, delivered: 2, skipped: 4, opened: 0, open_rate: 0 })
    const delivered = await events(t, s.campaign.id, 'email.delivered')
    expect(delivered).toHaveLength(2)
    expect(delivered[0]).toMatchObject({
      channel: 'email',
      campaign_id: expect.stringMatching(/^cmp_[0-9a-f]{32}$/),
    })
    expect(delivered[0].message_id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(delivered[0].contact_id).toMatch(/^con_[0-9a-f]{32}$/)
    expect(Date.parse(delivered[0].delivered_at)).toBeGreaterThan(0)
    const complete = await events(t, s.campaign.id, 'campaign.complete')
    expect(complete).toHaveLength(1)
    expect(complete[0]).toMatchObject({
      name: 'Launch week',
      channel: 'email',
      total_recipients: 6,
      total_sent: 2,
      skipped: 4,
      delivered: 2,
      bounced: 0,
      failed: 0,
    })
    const c = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
    expect(c).toMatchObject({ status: 'sent', total_recipients: 6, total_sent: 2, skipped: 4 })
  })

  test('GET /messages/{id} shows what was captured: tracked links, pixel, headers', async () => {
    const s = await setup(t, ['gil@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () => expect(await s.status()).toBe('sent'))
    const [m] = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`)
    const full = await s.call('GET', `/api/v1/messages/${m.id}`)
    expect(full.subject).toBe('Hello P0')
    expect(full.body_html).toContain('<p>Hi P0</p>')
    expect(full.body_html).toMatch(/href="http:\/\/localhost:8080\/t\/c\/[\w-]+\.[\w-]+"/)
    expect(full.body_html).not.toContain('https://example.com/a')
    expect(full.body_html).toContain('href="mailto:x@y.z"')
    expect(full.body_html).toMatch(/<img src="http:\/\/localhost:8080\/t\/o\/[\w-]+\.[\w-]+" width="1"/)
    expect(full.body_html).toMatch(/href="http:\/\/localhost:8080\/u\/[\w-]+\.[\w-]+"/)
    expect(full.body_text).toContain('Hi P0')
    expect(full.headers).toMatchObject({
      'message-id': `<${m.id}@herald.localhost>`,
      to: 'gil@example.com',
      subject: 'Hello P0',
      'list-unsubscribe-post': 'List-Unsubscribe=One-Click',
    })
    expect(full.message_id).toBe(`<${m.id}@herald.localhost>`)
    // Another tenant does not see it.
    const other = await t.key({ scopes: ['admin:*'], clientId: await t.client('Other') })
    expect((await t.call('GET', `/api/v1/messages/${m.id}`, { key: other })).status).toBe(404)
    expect(
      (await t.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`, { key: other })).body.data,
    ).toHaveLength(0)
  })

  test('GDPR erasure scrubs what was sent to the contact; counts stay', async () => {
    const s = await setup(t, ['erase-me@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () => expect(await s.status()).toBe('sent'))
    const [m] = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`)
    await s.call('DELETE', `/api/v1/contacts/${s.contacts['erase-me@example.com']}`)
    const after = await s.call('GET', `/api/v1/messages/${m.id}`)
    expect(after).toMatchObject({ to: '', status: 'delivered', subject: null, body_html: null, headers: {} })
    expect(JSON.stringify(after)).not.toContain('erase-me')
    expect(JSON.stringify(await events(t, s.campaign.id, 'email.delivered'))).not.toContain('erase-me')
    expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({ delivered: 1 })
  })

  test('a segment audience: the contacts the rules match at launch', async () => {
    const s = await setup(t, ['vip1@example.com', 'vip2@example.com', 'plain@example.com'])
    const seg = await s.call('POST', '/api/v1/segments', {
      name: 'VIP',
      rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'starts_with', value: 'vip' }] }],
    })
    const c = await s.call('POST', '/api/v1/campaigns', {
      name: 'VIP',
      segment_id: seg.id,
      subject: 'x',
      body_text: 'y',
    })
    const r = await s.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect(r.total_recipients).toBe(2)
    await eventually(async () =>
      expect((await s.call('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'),
    )
    const msgs = await s.call('GET', `/api/v1/messages?campaign_id=${c.id}`)
    expect(msgs.map((m: { to: string }) => m.to).sort()).toEqual(['vip1@example.com', 'vip2@example.com'])
  })
})

describe('pause, resume and cancel', async () => {
  // The worker is driven pass by pass (20 messages a pass), so "nothing more was sent" is a
  // pass that sent nothing, not a wait that happened to be long enough.
  const t = await createTestApp()
  const provider = recordingProvider()
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), batchSize: 20 })
  const emails = Array.from({ length: 150 }, (_, i) => `p${i}@example.com`)

  /** Launches and runs passes until at least `n` messages went out. */
  async function launchAndSend(n: number) {
    const s = await setup(t, emails)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    const sentTo = () => provider.sent.filter((m) => m.clientId === s.clientId)
    while (sentTo().length < n) await worker.runOnce()
    return { ...s, sentTo }
  }

  test('after a pause the next pass sends nothing; launch resumes where it stopped; nobody gets two', async () => {
    const s = await launchAndSend(20)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
    const atPause = s.sentTo().length
    expect(atPause).toBeLessThan(150)
    for (let i = 0; i < 3; i++) await worker.runOnce()
    expect(s.sentTo().length).toBe(atPause)
    expect(await s.status()).toBe('paused')
    const resumed = await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    expect(resumed.status).toBe('sending')
    await worker.drain()
    expect(await s.status()).toBe('sent')
    const to = s.sentTo().map((m) => m.to)
    expect(to).toHaveLength(150)
    expect(new Set(to).size).toBe(150)
  })

  test('deleting a paused campaign keeps what was sent: its unsubscribe links still work', async () => {
    const s = await launchAndSend(5)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
    await worker.runOnce()
    expect(await s.call('DELETE', `/api/v1/campaigns/${s.campaign.id}`)).toEqual({
      id: s.campaign.id,
      deleted: true,
    })
    const left = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}&limit=200`)
    expect(left.length).toBe(s.sentTo().length)
    expect(new Set(left.map((m: { status: string }) => m.status))).toEqual(new Set(['delivered']))
    const first = s.sentTo()[0]!
    if (first.channel !== 'email') throw new Error('email expected')
    const url = /<([^>]+)>/.exec(first.headers['List-Unsubscribe']!)![1]!
    const r = await t.app.handle(new Request(url, { method: 'POST', body: 'List-Unsubscribe=One-Click' }))
    expect(r.status).toBe(200)
    expect((await s.call('GET', `/api/v1/contacts/${s.contacts[first.to]}`)).status).toBe('unsubscribed')
  })

  test('cancel drops what is queued; no later pass sends anything', async () => {
    const s = await launchAndSend(10)
    const c = await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/cancel`)
    expect(c.status).toBe('cancelled')
    const after = s.sentTo().length
    expect(after).toBeLessThan(150)
    await worker.drain()
    expect(s.sentTo().length).toBe(after)
    const cancelled = await s.call(
      'GET',
      `/api/v1/messages?campaign_id=${s.campaign.id}&status=cancelled&limit=200`,
    )
    expect(cancelled.length).toBe(150 - after)
    expect(await s.status()).toBe('cancelled')
  })
})

describe('a pause takes hold within a second under HERALD_SEND_RATE', async () => {
  // With a send rate a batch is at most one second's worth, so a pause waits for at most that.
  const t = await createTestApp({ env: { HERALD_SEND_RATE: '100' } })
  const provider = recordingProvider()
  const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })

  test('one pass sends at most the rate; after the pause the next sends nothing', async () => {
    const s = await setup(
      t,
      Array.from({ length: 150 }, (_, i) => `r${i}@example.com`),
    )
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await worker.runOnce()
    const first = provider.sent.length
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThanOrEqual(100)
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
    await worker.runOnce()
    expect(provider.sent.length).toBe(first)
  })
})

describe('provider errors', async () => {
  const t = await createTestApp()
  const seen = new Set<string>()
  const provider = recordingProvider('capture', (m) => {
    if (m.to.startsWith('flaky') && !seen.has(m.to)) {
      seen.add(m.to)
      throw new ProviderError('451 try again later', true, 451)
    }
    if (m.to.startsWith('reject')) throw new ProviderError('550 no such user', false, 550)
    return { providerMessageId: `id-${m.to}`, delivered: true }
  })
  startTestSender(t, provider, { retryDelays: [20, 20] })

  test('a retryable error is retried (same Message-ID); a permanent one fails the message', async () => {
    const s = await setup(t, ['ok@example.com', 'flaky@example.com', 'reject@example.com'])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () => expect(await s.status()).toBe('sent'))
    const msgs = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`)
    const by = Object.fromEntries(msgs.map((m: { to: string }) => [m.to, m]))
    expect(by['flaky@example.com']).toMatchObject({
      status: 'delivered',
      attempts: 2,
      provider_message_id: 'id-flaky@example.com',
    })
    expect(by['reject@example.com']).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: '550 no such user',
    })
    const stats = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(stats).toMatchObject({ sent: 2, delivered: 2, failed: 1 })
  })

  test('a provider that refuses everything fails the campaign with the reason', async () => {
    const s = await setup(
      t,
      Array.from({ length: 40 }, (_, i) => `reject${i}@example.com`),
    )
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () => expect(await s.status()).toBe('failed'))
    const c = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
    expect(c.failure_reason).toContain('refused every message')
    expect(c.failure_reason).toContain('550 no such user')
    expect(await events(t, s.campaign.id, 'campaign.complete')).toHaveLength(0)
  })
})

describe('races with the operator', async () => {
  const t = await createTestApp()
  let refuse = true
  let gate: Promise<void> | null = null
  let onSend: (() => Promise<void>) | null = null
  const provider = recordingProvider('capture', async (m) => {
    await onSend?.()
    if (gate) await gate
    if (m.to.startsWith('retry')) throw new ProviderError('421 try again later', true, 421)
    if (refuse) throw new ProviderError('550 refused', false, 550)
    return { providerMessageId: null, delivered: true }
  })
  startTestSender(t, provider, { retryDelays: [20, 20] })

  test('paused while the provider refuses everything: nothing is dropped, resume sends the rest', async () => {
    const emails = Array.from({ length: 60 }, (_, i) => `p${i}@example.com`)
    const s = await setup(t, emails)
    let calls = 0
    let pausing: Promise<unknown> | null = null
    onSend = async () => {
      // The operator pauses mid-batch, after enough refusals to trip "refused everything". The
      // sends under way until the pause is made (up to HERALD_SEND_CONCURRENCY of them) end after
      // it: the pause is not racing an instant provider through the rest of the batch (on
      // PostgreSQL its transaction waits its turn behind the outcome writes queued before it).
      if (++calls === 30) pausing = s.call('POST', `/api/v1/campaigns/${s.campaign.id}/pause`)
      if (pausing) await pausing
    }
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () => expect(await s.status()).toBe('paused'))
    await Bun.sleep(200)
    // Nothing started once the pause was made: the 30th send and those beside it at the gate.
    expect(calls).toBeLessThanOrEqual(29 + t.ctx.config.sendConcurrency)
    const c = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}`)
    expect(c).toMatchObject({ status: 'paused', failure_reason: null })
    const cancelled = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}&status=cancelled`)
    expect(cancelled).toHaveLength(0)
    onSend = null
    refuse = false
    await s.launchAndWait()
    const stats = await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(stats.delivered + stats.failed).toBe(60)
    expect(stats.delivered).toBeGreaterThan(0)
  })

  test('cancelled while retryable sends are in flight: they end cancelled, not queued forever', async () => {
    refuse = false
    const s = await setup(t, ['retry1@example.com', 'retry2@example.com'])
    let open: () => void = () => {}
    gate = new Promise<void>((resolve) => {
      open = resolve
    })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await eventually(async () =>
      expect(
        await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}&status=sending`),
      ).toHaveLength(2),
    )
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/cancel`)
    gate = null
    open()
    await eventually(async () => {
      const msgs = await s.call('GET', `/api/v1/messages?campaign_id=${s.campaign.id}`)
      expect(msgs.map((m: { status: string }) => m.status)).toEqual(['cancelled', 'cancelled'])
    })
  })
})
