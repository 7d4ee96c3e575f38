import { fieldsMarkup } from '../../services/forms/markup'
import type { FormRow } from '../../services/forms/submit'
import type { Footer } from '../../services/sending-profiles/footer'
import { escapeHtml, PAGE_CSP, publicPage } from './layout'

// The pages of a signup form: the form itself (again with the problems after a bad post), the
// thank-you page, the confirmation page and the "no such form" page. All on the public layout.

/**
 * The hosted page's policy: the layout's, and the form may also be sent on to the form's
 * success_url (a browser checks form-action on the redirect that follows a post, too).
 */
export function formPageCsp(form: Pick<FormRow, 'successUrl'>): string {
  if (!form.successUrl) return PAGE_CSP
  return PAGE_CSP.replace("form-action 'self'", `form-action 'self' ${new URL(form.successUrl).origin}`)
}

export function formPage(
  form: FormRow,
  from: Footer,
  shown: { problems?: readonly { field: string; message: string }[]; values?: Record<string, string> } = {},
): string {
  const problems = shown.problems?.length
    ? `<div role="alert"><p>Please check the form:</p><ul>${shown.problems
        .map((p) => `<li>${escapeHtml(p.field.replace(/_/g, ' '))} ${escapeHtml(p.message)}</li>`)
        .join('')}</ul></div>`
    : ''
  const fields = fieldsMarkup({
    fields: form.fields,
    consentText: form.consentText,
    values: shown.values,
    idPrefix: 'f',
  })
  return publicPage({
    title: 'Subscribe',
    body: `<h1>Subscribe</h1>${problems}<form method="post" action="/f/${form.id}" accept-charset="utf-8">${fields}</form>`,
    from,
  })
}

export const thanksPage = (doubleOptIn: boolean, from: Footer) =>
  publicPage({
    title: doubleOptIn ? 'Check your inbox' : 'Subscribed',
    body: doubleOptIn
      ? '<h1>Check your inbox</h1><p>We sent you a message with a link: follow it to confirm your subscription.</p>'
      : '<h1>Thank you</h1><p>You are subscribed.</p>',
    from,
  })

export const confirmedPage = (from: Footer) =>
  publicPage({
    title: 'Subscription confirmed',
    body: '<h1>Subscription confirmed</h1><p>Thank you: your subscription is confirmed.</p>',
    from,
  })

export const NOT_FOUND_PAGE = publicPage({
  title: 'Not found',
  body: '<h1>Not found</h1><p>This form or link does not exist, is no longer available, or has expired.</p>',
})

export const TOO_MANY_PAGE = publicPage({
  title: 'Too many attempts',
  body: '<h1>Too many attempts</h1><p>Please wait a minute and try again.</p>',
})
