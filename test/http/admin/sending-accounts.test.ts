import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { startSink } from '../../helpers/smtp-sink'
import { lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// The Sending page: a workspace's own SMTP relay and Twilio account, its footer and its ESP
// feedback URLs, saved through the same verb as PUT /clients/{id}/sending; a password is never
// shown back and a blank field keeps it; the test button names the step that failed.

setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const owner = lazyOwner(t)
const acme = await t.client('Acme')
const sink = await startSink({ disabledCommands: ['STARTTLS'] })

describe('the Sending page', () => {
  test('with every workspace chosen it asks for one', async () => {
    const b = await owner()
    await b.post('/admin/workspace', { workspace: '', next: '/admin/sending' })
    const r = await b.get('/admin/sending')
    expect(r.status).toBe(200)
    expect(r.text).toContain('choose the workspace')
  })

  test('save an SMTP relay and a footer; the password is masked, a blank field keeps it; the test logs in', async () => {
    const b = await owner()
    await b.post('/admin/workspace', { workspace: acme, next: '/admin/sending' })
    const saved = await b.post('/admin/sending', {
      email_provider: 'smtp',
      email_smtp_url: `smtp://herald:s3cret@127.0.0.1:${sink.port}`,
      email_pool: '2',
      sms_provider: 'inherit',
      footer_company: 'Acme Ltd',
      footer_postal_address: '1 Main St',
    })
    expect(saved.status).toBe(303)
    const page = await b.get('/admin/sending')
    expect(page.text).toContain('Saved the sending accounts.')
    expect(page.text).toContain(`smtp://herald:•••@127.0.0.1:${sink.port}`)
    expect(page.text).not.toContain('s3cret')
    expect(page.text).toMatch(/\/hooks\/postmark\/[A-Za-z0-9]+/)
    // No provider has posted yet: the last notification column says so.
    expect(page.text).toContain('Last notification')
    expect(page.text).toContain('none yet')
    // Saved again with the URL left blank: the stored one stays.
    expect(
      (await b.post('/admin/sending', { email_provider: 'smtp', footer_company: 'Acme Ltd' })).status,
    ).toBe(303)
    const profile = (await t.call('GET', `/api/v1/clients/${acme}/sending`)).body.data
    expect(profile.email.smtp_url).toBe(`smtp://herald:•••@127.0.0.1:${sink.port}`)
    expect(profile.footer.company).toBe('Acme Ltd')
    const tested = await b.post('/admin/sending/test', { channel: 'email' })
    expect(tested.status).toBe(303)
    expect((await b.get('/admin/sending')).text).toContain(
      'Email: connected to 127.0.0.1 (no TLS), logged in',
    )
  })

  test('the answer to HELP is saved and shown; the inbound SMS URL is there to copy', async () => {
    const b = await owner()
    await b.post('/admin/workspace', { workspace: acme, next: '/admin/sending' })
    const help = 'Acme: text STOP to stop'
    expect((await b.post('/admin/sending', { sms_provider: 'inherit', sms_help_text: help })).status).toBe(
      303,
    )
    const profile = (await t.call('GET', `/api/v1/clients/${acme}/sending`)).body.data
    expect(profile.sms.help_text).toBe(help)
    const page = (await b.get('/admin/sending')).text
    expect(page).toContain(`value="${help}"`)
    expect(page).toContain(`value="${profile.feedback.urls.twilio_sms}"`)
    expect(profile.feedback.urls.twilio_sms).toMatch(/\/hooks\/twilio\/sms\/[A-Za-z0-9]+$/)
  })

  test('a refusal comes back next to its fieldset', async () => {
    const b = await owner()
    await b.post('/admin/workspace', { workspace: acme, next: '/admin/sending' })
    const r = await b.post('/admin/sending', { email_provider: 'inherit', sms_provider: 'twilio' })
    expect(r.status).toBe(422)
    expect(r.text).toContain('id="sms-error"')
  })

  test('a member may not open it', async () => {
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [acme] }))
    expect((await member.get('/admin/sending')).status).toBe(403)
  })
})
