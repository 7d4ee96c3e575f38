import { EMAIL_PROVIDERS, TEXT_PROVIDERS } from '../../../services/sending-profiles/inputs'
import {
  getSendingProfileVerb,
  putSendingProfileVerb,
  testSendingProfileVerb,
} from '../../../services/sending-profiles/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'

// Sending: the workspace's own accounts (SMTP relay, Twilio for SMS), its footer (who sends, and
// the postal address, for CAN-SPAM) and the URLs its ESP posts bounces and complaints to. What is
// left as "inherit" uses the instance's settings. Secrets are never shown: a blank field keeps
// the stored one.

const PATH = '/admin/sending'

type Profile = Awaited<ReturnType<typeof getSendingProfileVerb.run>>

async function form(req: PortalRequest, errors: FieldErrors, given?: Record<string, unknown>) {
  if (!req.workspace)
    return page('pages/sending/index', 'Sending', { no_workspace: true, errors: {}, values: {} })
  const profile: Profile = await invoke(getSendingProfileVerb, req.ctx, { id: req.workspace.id })
  const current = {
    email_provider: profile.email.provider,
    email_pool: profile.email.pool ?? '',
    email_hourly_cap: profile.email.hourly_cap ?? '',
    sms_provider: profile.sms.provider,
    sms_twilio_account_sid: profile.sms.twilio_account_sid ?? '',
    sms_twilio_base_url: profile.sms.twilio_base_url ?? '',
    sms_from: profile.sms.from ?? '',
    sms_help_text: profile.sms.help_text ?? '',
    footer_company: profile.footer.company ?? '',
    footer_postal_address: profile.footer.postal_address ?? '',
    feedback_ses: profile.feedback.ses.enabled ? 'on' : '',
    feedback_postmark_username: profile.feedback.postmark?.username ?? '',
    feedback_sendgrid_public_key: profile.feedback.sendgrid?.public_key ?? '',
  }
  return page('pages/sending/index', 'Sending', {
    errors,
    values: { ...current, ...given },
    profile,
    workspace: req.workspace,
    email_providers: EMAIL_PROVIDERS,
    text_providers: TEXT_PROVIDERS,
    feedback_providers: ['ses', 'postmark', 'mailgun', 'sendgrid'],
  })
}

const int = (req: PortalRequest, name: string) => {
  const v = text(req, name)?.trim()
  return v ? Number(v) : undefined
}
const given = (req: PortalRequest, name: string) => text(req, name)?.trim() || undefined

/** The PUT body from the form; what the form does not show (other channels, throttles) is kept. */
function input(req: PortalRequest, profile: Profile) {
  const keepText = (c: Profile['voice']) => ({
    provider: c.provider,
    ...(c.twilio_account_sid ? { twilio_account_sid: c.twilio_account_sid } : {}),
    ...(c.twilio_base_url ? { twilio_base_url: c.twilio_base_url } : {}),
    ...(c.from ? { from: c.from } : {}),
  })
  const postmarkUser = given(req, 'feedback_postmark_username')
  const mailgunKey = given(req, 'feedback_mailgun_signing_key')
  const sendgridKey = given(req, 'feedback_sendgrid_public_key')
  return {
    id: req.workspace!.id,
    email: {
      provider: text(req, 'email_provider') ?? 'inherit',
      ...(given(req, 'email_smtp_url') ? { smtp_url: given(req, 'email_smtp_url') } : {}),
      ...(int(req, 'email_pool') !== undefined ? { pool: int(req, 'email_pool') } : {}),
      ...(int(req, 'email_hourly_cap') !== undefined ? { hourly_cap: int(req, 'email_hourly_cap') } : {}),
      ...(Object.keys(profile.email.throttles).length ? { throttles: profile.email.throttles } : {}),
    },
    sms: {
      provider: text(req, 'sms_provider') ?? 'inherit',
      ...(given(req, 'sms_twilio_account_sid')
        ? { twilio_account_sid: given(req, 'sms_twilio_account_sid') }
        : {}),
      ...(given(req, 'sms_twilio_auth_token')
        ? { twilio_auth_token: given(req, 'sms_twilio_auth_token') }
        : {}),
      ...(given(req, 'sms_twilio_base_url') ? { twilio_base_url: given(req, 'sms_twilio_base_url') } : {}),
      ...(given(req, 'sms_from') ? { from: given(req, 'sms_from') } : {}),
      ...(given(req, 'sms_help_text') ? { help_text: given(req, 'sms_help_text') } : {}),
    },
    voice: keepText(profile.voice),
    whatsapp: keepText(profile.whatsapp),
    rcs: keepText(profile.rcs),
    default_sender_id: profile.default_sender_id,
    footer: {
      ...(given(req, 'footer_company') ? { company: given(req, 'footer_company') } : {}),
      ...(given(req, 'footer_postal_address') ? { postal_address: given(req, 'footer_postal_address') } : {}),
    },
    feedback: {
      ses: { enabled: text(req, 'feedback_ses') === 'on' },
      ...(postmarkUser
        ? {
            postmark: {
              username: postmarkUser,
              ...(given(req, 'feedback_postmark_password')
                ? { password: given(req, 'feedback_postmark_password') }
                : {}),
            },
          }
        : {}),
      ...(mailgunKey || profile.feedback.mailgun
        ? { mailgun: mailgunKey ? { signing_key: mailgunKey } : {} }
        : {}),
      ...(sendgridKey ? { sendgrid: { public_key: sendgridKey } } : {}),
      ...(text(req, 'rotate_token') === 'on' ? { rotate_token: true } : {}),
    },
  }
}

export const sendingSection = defineSection({
  path: PATH,
  title: 'Sending',
  order: 58,
  group: 'setup',
  roles: ['owner', 'admin'],
  routes: [
    { method: 'GET', path: PATH, handler: async (req) => await form(req, {}) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        if (!req.workspace) return await form(req, {})
        const profile = await invoke(getSendingProfileVerb, req.ctx, { id: req.workspace.id })
        return await submit(req, putSendingProfileVerb, input(req, profile), {
          done: () => redirect(PATH, { kind: 'success', message: 'Saved the sending accounts.' }),
          retry: async (errors) => await form(req, errors, values(req)),
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/test`,
      handler: async (req) => {
        if (!req.workspace) return await form(req, {})
        const channel = text(req, 'channel') === 'sms' ? 'sms' : 'email'
        const r = await invoke(testSendingProfileVerb, req.ctx, { id: req.workspace.id, channel })
        return redirect(PATH, {
          kind: r.ok ? 'success' : 'error',
          message: `${channel === 'email' ? 'Email' : 'SMS'}: ${r.detail}`,
        })
      },
    },
  ],
})
