import {
  createDomainVerb,
  deleteDomainVerb,
  getDomainVerb,
  listDomainsVerb,
  updateDomainVerb,
  verifyDomainVerb,
} from '../../../services/domains/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page, redirect } from '../types'
import { indexRoute, needsWorkspace } from './links'

// Sending domains: the DNS records to publish (DKIM, SPF, DMARC), each with a copy
// button; "Verify" runs domains.verify (its DNS look-ups in the verb's prepare, outside the
// transaction) and the page shows, for each record that fails, what DNS answered and what was
// expected, in the verb's own words. Its warm-up: where it stands, and a button to switch it
// off (a domain that arrives with its reputation) or on again.

const PATH = '/admin/domains'

function newForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/domains/new', 'Add a domain', {
    errors,
    values: { domain: '', ...given },
    no_workspace: needsWorkspace(req),
  })
}

const PURPOSE: Record<string, string> = {
  dkim: 'DKIM — signs your mail',
  spf: 'SPF — authorises Herald to send',
  dmarc: 'DMARC — tells receivers what to do',
}

export const domainsSection = defineSection({
  path: PATH,
  title: 'Domains',
  order: 60,
  group: 'setup',
  routes: [
    indexRoute(PATH, listDomainsVerb, { template: 'pages/domains/index', title: 'Domains', rows: 'domains' }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          createDomainVerb,
          { domain: text(req, 'domain')?.trim() ?? '' },
          {
            done: (d) =>
              redirect(`${PATH}/${d.id}`, {
                kind: 'success',
                message: `Added ${d.domain}. Publish the three records below, then verify.`,
              }),
            retry: (errors) => newForm(req, errors, values(req)),
          },
        ),
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const domain = await invoke(getDomainVerb, req.ctx, { id: req.params.id })
        const checks = domain.verification as Record<
          string,
          { verified: boolean; outcome: string; message: string; found: string[] }
        > | null
        return page('pages/domains/show', domain.domain, {
          domain,
          records: domain.dns_records.map((r) => ({
            ...r,
            label: PURPOSE[r.purpose] ?? r.purpose,
            check: checks ? (checks[r.purpose] ?? null) : null,
          })),
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/verify`,
      handler: async (req) => {
        const d = await invoke(verifyDomainVerb, req.ctx, { id: req.params.id })
        const failing = (['dkim', 'spf', 'dmarc'] as const).filter(
          (p) => d.verification?.[p].outcome !== 'pass',
        )
        return redirect(`${PATH}/${d.id}`, {
          kind: d.verified ? 'success' : 'error',
          message: d.verified
            ? `${d.domain} is verified${failing.length ? ` (still to fix: ${failing.join(', ').toUpperCase()})` : ''}.`
            : `${d.domain} is not verified yet: ${failing.map((p) => p.toUpperCase()).join(', ')} failed — see the reason under each record.`,
        })
      },
    },
    {
      method: 'POST',
      path: `${PATH}/:id/warmup`,
      handler: async (req) => {
        const warmup = text(req, 'warmup') === 'on'
        const d = await invoke(updateDomainVerb, req.ctx, { id: req.params.id, warmup })
        return redirect(`${PATH}/${d.id}`, {
          kind: 'success',
          message: warmup
            ? `Warm-up is on for ${d.domain}: its mail keeps under the daily cap.`
            : `Warm-up is off for ${d.domain}: its mail is no longer capped per day.`,
        })
      },
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getDomainVerb, req.ctx, { id: req.params.id }),
      confirm: (domain) => page('pages/domains/delete', `Delete ${domain.domain}`, { domain }),
      act: async (req, domain) => await invoke(deleteDomainVerb, req.ctx, { id: domain.id }),
      done: (domain) => `Deleted the domain ${domain.domain}.`,
    }),
  ],
})
