import { parseConnectionUrl } from 'nodemailer/lib/shared'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import type { Ctx } from '../../context'
import { invalidField } from '../../errors'
import { findClientRow } from '../clients/read'
import { effectiveProfile } from './effective'
import type { TextChannel } from './inputs'

// POST /clients/{id}/sending/test: does the client's account answer? SMTP connects, says EHLO,
// upgrades with STARTTLS when offered, logs in and quits (no message); Twilio reads the account.
// A failure names the step that failed (`AUTH failed: 535 …`).

interface SmtpError extends Error {
  code?: string
  response?: string
}

const TIMEOUT_MS = 10_000

const TLS_TROUBLE = /certificate|self[- ]signed|TLS|SSL|handshake/i

/** The step an SMTP error belongs to, as the answer names it. */
function smtpStep(err: SmtpError, implicitTls: boolean): string {
  const why = err.response ?? err.message
  // A certificate refused while upgrading (or, for smtps://, while connecting) is the TLS step's.
  if (err.code !== 'EAUTH' && TLS_TROUBLE.test(err.message))
    return `${implicitTls ? 'TLS' : 'STARTTLS'} failed: ${why}`
  switch (err.code) {
    case 'EAUTH':
      return `AUTH failed: ${why}`
    case 'ETLS':
      return `STARTTLS failed: ${why}`
    case 'EPROTOCOL':
      return `EHLO failed: ${why}`
    default:
      return `connect failed: ${why}`
  }
}

function testSmtp(url: string): Promise<{ ok: boolean; detail: string }> {
  const { auth, ...target } = parseConnectionUrl(url) as {
    auth?: { user: string; pass: string }
    host?: string
    secure?: boolean
  }
  const implicitTls = target.secure === true
  return new Promise((resolve) => {
    const smtp = new SMTPConnection({
      ...target,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    } as ConstructorParameters<typeof SMTPConnection>[0])
    let settled = false
    const done = (ok: boolean, detail: string) => {
      if (settled) return
      settled = true
      if (ok) smtp.quit()
      else smtp.close()
      resolve({ ok, detail })
    }
    smtp.on('error', (err: SmtpError) => done(false, smtpStep(err, implicitTls)))
    smtp.connect(() => {
      const tls = smtp.secure ? 'TLS' : 'no TLS'
      if (!auth) return done(true, `connected to ${target.host} (${tls}); no credentials to try`)
      if (!smtp.allowsAuth) return done(false, `AUTH failed: ${target.host} offers no AUTH (${tls})`)
      smtp.login(auth, (err) =>
        err
          ? done(false, smtpStep(err as SmtpError, implicitTls))
          : done(true, `connected to ${target.host} (${tls}), logged in`),
      )
    })
  })
}

async function testTwilio(twilio: { accountSid: string; authToken: string; baseUrl: string | null }) {
  const base = twilio.baseUrl ?? 'https://api.twilio.com'
  try {
    const res = await fetch(`${base}/2010-04-01/Accounts/${encodeURIComponent(twilio.accountSid)}.json`, {
      headers: { authorization: `Basic ${btoa(`${twilio.accountSid}:${twilio.authToken}`)}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    })
    if (res.status === 401 || res.status === 403) return { ok: false, detail: `AUTH failed: ${res.status}` }
    if (!res.ok) return { ok: false, detail: `account read failed: ${res.status}` }
    return { ok: true, detail: `account ${twilio.accountSid} answered` }
  } catch (err) {
    return { ok: false, detail: `connect failed: ${(err as Error).message}` }
  }
}

export async function testSendingProfile(ctx: Ctx, clientId: string, channel: 'email' | TextChannel) {
  const client = await findClientRow(ctx, clientId)
  const profile = await effectiveProfile(ctx, client.id)
  if (channel === 'email') {
    if (profile.email.provider !== 'smtp')
      return { ok: true, detail: `the ${profile.email.provider} provider needs no connection` }
    if (!profile.email.smtpUrl) throw invalidField('channel', 'email has no SMTP URL to test')
    return testSmtp(profile.email.smtpUrl)
  }
  const text = profile.text[channel]
  if (text.provider !== 'twilio')
    return { ok: true, detail: `the ${text.provider} provider needs no connection` }
  if (!text.twilio) throw invalidField('channel', `${channel} has no Twilio account to test`)
  return testTwilio(text.twilio)
}
