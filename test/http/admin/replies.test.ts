// The replies inbox of the portal: a reply received over the inbound endpoint is listed (newest
// first) in its client's workspace with its sender and snippet, its page shows the text as text
// (a hostile reply stays inert), another client's member gets 404 for it.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { recordingProvider, startTestSender } from '../../helpers/sender'
import { type EmailOut, INBOUND_ENV, replyTo, sendCampaign } from '../../inbound/fixtures'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

setDefaultTimeout(60_000)

const t = await createTestApp({
  env: { ...PORTAL_ENV, HERALD_INBOUND_DOMAIN: INBOUND_ENV.HERALD_INBOUND_DOMAIN },
})
const provider = recordingProvider()
startTestSender(t, provider)

const reply = (m: EmailOut, text: string) => replyTo(t, m, text)

let sent: Awaited<ReturnType<typeof sendCampaign>>
let replyId: string
beforeAll(async () => {
  sent = await sendCampaign(t, provider, ['ann@example.com'])
  replyId = await reply(sent.out['ann@example.com']!, 'Thanks! <script>window.__xss=1</script>')
})

describe('replies pages', () => {
  test('the inbox lists the reply in its workspace; its page shows the text as text', async () => {
    const owner = await signIn(t)
    await owner.post('/admin/workspace', { workspace: sent.clientId, next: '/admin/replies' })
    const inbox = await owner.get('/admin/replies')
    expect(inbox.status).toBe(200)
    expect(inbox.text).toContain(`href="/admin/replies/${replyId}"`)
    expect(inbox.text).toContain('ann@example.com')
    expect(inbox.text).toContain('1 in all.')
    const page = await owner.get(`/admin/replies/${replyId}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Thanks! &lt;script&gt;window.__xss=1&lt;/script&gt;')
    expect(page.text).not.toContain('<script>window.__xss')
    expect(page.text).toContain(`href="/admin/campaigns/${sent.campaign.id}"`)
    // Filtered to its campaign, from the campaign's page.
    expect((await owner.get(`/admin/replies?campaign_id=${sent.campaign.id}`)).text).toContain(replyId)

    const stranger = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await stranger.get(`/admin/replies/${replyId}`)).status).toBe(404)
    expect((await stranger.get('/admin/replies')).text).toContain('No replies yet')
  })
})
