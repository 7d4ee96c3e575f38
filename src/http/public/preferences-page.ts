import type { PreferenceContact, PreferenceList } from '../../services/preferences/read'
import type { Footer } from '../../services/sending-profiles/footer'
import { escapeHtml, publicPage } from './layout'

// The preference centre's pages: the form (public lists as checkboxes, first and last name,
// "unsubscribe from everything"), what a save did, and the answers for a bad link or a stale form.

const field = (id: string, label: string, value: string | null) =>
  `<label for="${id}">${label}</label><input type="text" id="${id}" name="${id}" maxlength="200" autocomplete="${id === 'first_name' ? 'given-name' : 'family-name'}" value="${escapeHtml(value ?? '')}">`

const listBox = (l: PreferenceList) =>
  `<label class="check"><input type="checkbox" name="list" value="${escapeHtml(l.id)}"${l.status === 'confirmed' || l.status === 'unconfirmed' ? ' checked' : ''}> ${escapeHtml(l.name)}${l.status === 'unconfirmed' ? ' <small>(waiting for your confirmation: saving with it ticked confirms it)</small>' : ''}</label>`

export function preferencesForm(
  contact: PreferenceContact,
  lists: readonly PreferenceList[],
  nonce: string,
  from: Footer,
): string {
  const away =
    contact.status === 'subscribed'
      ? ''
      : `<p role="status"><strong>You receive no messages${from.company ? ` from ${escapeHtml(from.company)}` : ''} at the moment</strong> (this address is ${escapeHtml(contact.status)}). Your choices below are kept.</p>`
  const choices = lists.length
    ? `<fieldset><legend>What you receive</legend>${lists.map(listBox).join('')}</fieldset>`
    : ''
  return publicPage({
    title: 'Your preferences',
    from,
    body: `<h1>Your preferences</h1><p>For ${escapeHtml(contact.email)}</p>${away}<form method="post"><input type="hidden" name="nonce" value="${escapeHtml(nonce)}">${field('first_name', 'First name', contact.firstName)}${field('last_name', 'Last name', contact.lastName)}${choices}<label class="check"><input type="checkbox" name="unsubscribe_all" value="1"> Unsubscribe from everything</label><button type="submit">Save</button></form>`,
  })
}

export function savedPage(everything: boolean, again: string, from: Footer): string {
  return publicPage({
    title: 'Preferences saved',
    from,
    body: everything
      ? `<h1>You are unsubscribed</h1><p>You will not receive any more messages${from.company ? ` from ${escapeHtml(from.company)}` : ''}.</p><p><a href="${escapeHtml(again)}">Back to your preferences</a></p>`
      : `<h1>Your preferences are saved</h1><p><a href="${escapeHtml(again)}">Back to your preferences</a></p>`,
  })
}

export const STALE_FORM_PAGE = (again: string, from: Footer) =>
  publicPage({
    title: 'Please try again',
    from,
    body: `<h1>This form has expired</h1><p>Nothing was changed. <a href="${escapeHtml(again)}">Open your preferences again</a> and save from there.</p>`,
  })

export const NOT_FOUND_PAGE = publicPage({
  title: 'Link not valid',
  body: '<h1>This link is not valid</h1><p>Open the preferences link from a recent message again.</p>',
})

/** What a template preview's preference link opens, by GET or POST: nothing is changed. */
export const PREVIEW_PAGE = publicPage({
  title: 'Your preferences (preview)',
  body: '<h1>Your preferences (preview)</h1><p>This is a template preview. In a sent message this link opens the recipient’s preference centre: the public lists with their memberships, their name and “unsubscribe from everything”. Here nothing is shown or changed.</p>',
})
