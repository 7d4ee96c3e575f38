import type { Operation } from '../rest/define-operation'

// Descriptions written for a model: what the tool does (the operation's own summary), when to
// reach for it, and what it costs or risks. Generated for every operation, so a new operation
// reads sensibly without an entry here; NOTES add what only a person knows about one of them.

const NOTES: Readonly<Record<string, string>> = {
  launchCampaign:
    'Starts sending the campaign to every recipient of its list or segment: real messages go out and cannot be recalled. Requires confirm: true. Before launching, check the campaign with get_campaign (audience, subject, sender) and preview its template, and launch only after the user has explicitly approved this send. Poll get_campaign_stats for progress.',
  cancelCampaign: 'Stops a scheduled, sending or paused campaign for good; messages already sent stay sent.',
  pauseCampaign: 'Sending stops after the messages in flight; launch_campaign resumes it.',
  sendMessage:
    'Sends one real message to one contact right away (transactional). Confirm with the user first.',
  createCampaign: 'Creates a draft only: nothing is sent until launch_campaign.',
  searchContacts: 'Full-text search over name, email and company; cheaper than paging through list_contacts.',
  previewTemplate: 'Renders a template for one contact (contact_id) or sample data without sending anything.',
  createContactImport:
    'Runs in the background: poll get_contact_import with the returned id until status is completed or failed.',
  verifyDomain:
    'Looks the domain’s DNS records up now (takes a few seconds) and reports each failing record.',
  testWebhook: 'Sends one signed test event to the webhook’s URL now.',
  getWebhookSecret: 'Reveals the signing secret: show it only to a user who asked for it.',
  rotateWebhookSecret: 'The old secret stops verifying at once; the receiver must be updated.',
  createApiKey: 'The full key is returned once, never again.',
  getCampaignStats:
    'Counts and rates for one campaign (sent, delivered, opened, clicked, bounced…); cheap to poll.',
}

const isList = (o: Operation) =>
  o.method === 'GET' && o.answer === 'as-is' && o.queryMembers.includes('limit')
const hasId = (o: Operation) => o.path.includes('{')

function when(o: Operation): string {
  if (isList(o))
    return 'Returns one page (limit 1–200, default 50); pass pagination.next_cursor as cursor for the next. Use it to find records and their ids.'
  if (o.method === 'GET')
    return hasId(o) ? 'Use it when you already have the id (from a list or search).' : ''
  if (o.method === 'PATCH') return 'Partial update: members left out keep their values.'
  if (o.method === 'PUT') return 'Replaces the whole record: members left out take their defaults.'
  if (o.method === 'POST' && /^create/.test(o.id)) return 'Returns the new record with its id.'
  return ''
}

function cost(o: Operation): string {
  const scope = o.auth === 'any' ? 'any valid key' : `scope ${o.auth}`
  if (o.method === 'GET') return `Read-only; changes nothing. Needs ${scope}.`
  if (o.destructive)
    return `Destructive: cannot be undone — confirm with the user before calling. Needs ${scope}.`
  return `Changes data. Needs ${scope}.`
}

/** `what` replaces the operation's summary and description (a file tool says what it takes itself). */
export function describe(o: Operation, what?: string): string {
  const summary = o.summary.endsWith('.') ? o.summary : `${o.summary}.`
  const head = what ?? [summary, o.description].filter(Boolean).join(' ')
  return [head, NOTES[o.id], when(o), cost(o)].filter(Boolean).join(' ')
}
