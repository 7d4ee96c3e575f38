import { BlockList, isIP } from 'node:net'
import type { CheckResult } from '../../db/schema'
import { isRsaPublicKey, parseTags } from '../../lib/dkim-key'

// The three checks of POST /domains/{id}/verify, as pure functions of what DNS answered, each
// with a message a user can act on. A look-up that failed for a transient reason is an
// `error` (the stored result is left alone), not a `fail`.

export type Lookup =
  | { kind: 'found'; records: string[] }
  | { kind: 'missing' }
  | { kind: 'error'; code: string }

const pass = (message: string, found: string[]): CheckResult => ({ outcome: 'pass', message, found })
const fail = (message: string, found: string[]): CheckResult => ({ outcome: 'fail', message, found })

function lookupFailed(name: string, lookup: { code: string }): CheckResult {
  return {
    outcome: 'error',
    message: `The DNS look-up of ${name} failed (${lookup.code}); this is usually temporary — try again in a few minutes.`,
    found: [],
  }
}

const publish = (name: string, value: string) => `Publish a TXT record at ${name} with the value "${value}".`

export function checkDkim(
  lookup: Lookup,
  name: string,
  publicKey: string,
  expectedValue: string,
): CheckResult {
  if (lookup.kind === 'error') return lookupFailed(name, lookup)
  const records = lookup.kind === 'found' ? lookup.records : []
  if (records.length === 0)
    return fail(
      `No DKIM record found at ${name}. ${publish(name, expectedValue)} The value is longer than 255 characters: most DNS providers split it for you; in a zone file write it as several quoted strings in one record.`,
      [],
    )
  if (records.length > 1)
    return fail(
      `Found ${records.length} TXT records at ${name}; a DKIM selector must have exactly one. Delete all but the one with the value "${expectedValue}".`,
      records,
    )
  const record = records[0] ?? ''
  const tags = parseTags(record)
  const version = tags.get('v')
  if (version !== undefined && version !== 'DKIM1')
    return fail(
      `The record at ${name} is not a DKIM key record (v=${version}). ${publish(name, expectedValue)}`,
      records,
    )
  const keyType = tags.get('k') ?? 'rsa'
  if (keyType.toLowerCase() !== 'rsa')
    return fail(
      `The DKIM record at ${name} declares k=${keyType}; Herald signs with RSA. ${publish(name, expectedValue)}`,
      records,
    )
  const p = (tags.get('p') ?? '').replace(/\s+/g, '')
  if (p === '')
    return fail(
      `The DKIM record at ${name} has no public key (an empty or missing p= tag revokes the key). ${publish(name, expectedValue)}`,
      records,
    )
  if (p === publicKey) return pass(`The DKIM record at ${name} carries Herald's public key.`, records)
  if (publicKey.startsWith(p))
    return fail(
      `The DKIM key at ${name} is cut short (${p.length} of ${publicKey.length} characters of p=): the record was probably truncated at 255 characters. Publish the whole value; a 2048-bit key must be written as several strings in one TXT record.`,
      records,
    )
  if (!isRsaPublicKey(p))
    return fail(
      `The DKIM record at ${name} is malformed: p= is not a valid base64 RSA public key (check for missing characters or stray quotes). ${publish(name, expectedValue)}`,
      records,
    )
  return fail(
    `The DKIM record at ${name} carries a different public key (from another provider, or an older Herald key). Replace it: ${publish(name, expectedValue)}`,
    records,
  )
}

const SPF_RE = /^v=spf1(\s|$)/i

/** Whether one SPF term (`include:…`, `ip4:…/24`) authorises the configured mechanism. */
function authorises(term: string, mechanism: string): boolean {
  const t = term.replace(/^\+/, '').toLowerCase()
  const [kind, target] = mechanism.split(/:(.*)/s) as [string, string]
  if (kind === 'include') return t === mechanism || t === `${mechanism}.`
  if (!t.startsWith(`${kind}:`)) return false
  const [net = '', prefix] = t.slice(kind.length + 1).split('/')
  const family = kind === 'ip4' ? 'ipv4' : 'ipv6'
  if (isIP(net) !== (kind === 'ip4' ? 4 : 6)) return false
  const bits = prefix === undefined ? (kind === 'ip4' ? 32 : 128) : Number(prefix)
  if (!Number.isInteger(bits) || bits < 0 || bits > (kind === 'ip4' ? 32 : 128)) return false
  const list = new BlockList()
  list.addSubnet(net, bits, family)
  return list.check(target, family)
}

/** The record with `mechanism` added before its `all` (or redirect) term. */
function withMechanism(record: string, mechanism: string): string {
  const terms = record.trim().split(/\s+/)
  const at = terms.findIndex((term) => /^[+?~-]?all$/i.test(term) || /^redirect=/i.test(term))
  terms.splice(at === -1 ? terms.length : at, 0, mechanism)
  return terms.join(' ')
}

export function checkSpf(
  lookup: Lookup,
  domain: string,
  mechanism: string | null,
  expectedValue: string,
): CheckResult {
  if (lookup.kind === 'error') return lookupFailed(domain, lookup)
  const found = lookup.kind === 'found' ? lookup.records.filter((r) => SPF_RE.test(r.trim())) : []
  if (found.length === 0)
    return fail(`No SPF record found at ${domain}. ${publish(domain, expectedValue)}`, [])
  if (found.length > 1)
    return fail(
      `Found ${found.length} SPF records at ${domain}; RFC 7208 allows exactly one (receivers treat several as an error). Merge them into a single v=spf1 record.`,
      found,
    )
  const record = (found[0] ?? '').trim()
  const terms = record.split(/\s+/).slice(1)
  const all = terms.find((term) => /^[+?~-]?all$/i.test(term))
  if (all !== undefined && /^\+?all$/i.test(all))
    return fail(
      `The SPF record at ${domain} ends in ${all}, which authorises every server on the Internet to send as ${domain}. Replace it with ~all or -all.`,
      found,
    )
  if (mechanism === null) return pass(`${domain} publishes an SPF record.`, found)
  if (terms.some((term) => authorises(term, mechanism)))
    return pass(`The SPF record at ${domain} authorises Herald (${mechanism}).`, found)
  return fail(
    `The SPF record at ${domain} does not authorise Herald's sending servers: add ${mechanism} before the all mechanism, for example "${withMechanism(record, mechanism)}".`,
    found,
  )
}

const DMARC_POLICIES = ['none', 'quarantine', 'reject']

export function checkDmarc(lookup: Lookup, name: string, expectedValue: string): CheckResult {
  if (lookup.kind === 'error') return lookupFailed(name, lookup)
  const records = lookup.kind === 'found' ? lookup.records : []
  const found = records.filter((r) => /^\s*v\s*=\s*DMARC1\s*(;|$)/i.test(r))
  if (found.length === 0) {
    const other = records.length > 0 ? ` The TXT record there does not start with v=DMARC1.` : ''
    return fail(`No DMARC record found at ${name}.${other} ${publish(name, expectedValue)}`, records)
  }
  if (found.length > 1)
    return fail(
      `Found ${found.length} DMARC records at ${name}; receivers ignore DMARC when there is more than one. Keep exactly one.`,
      found,
    )
  const record = found[0] ?? ''
  if (!/^v=DMARC1\s*(;|$)/.test(record.trim()))
    return fail(
      `The DMARC record at ${name} must start with exactly "v=DMARC1;". ${publish(name, expectedValue)}`,
      found,
    )
  const policy = parseTags(record).get('p')
  if (policy === undefined)
    return fail(
      `The DMARC record at ${name} has no policy: add p=none (monitor), p=quarantine or p=reject, for example "${expectedValue}".`,
      found,
    )
  if (!DMARC_POLICIES.includes(policy.toLowerCase()))
    return fail(
      `The DMARC record at ${name} has an invalid policy p=${policy}; use none, quarantine or reject.`,
      found,
    )
  return pass(`${name} publishes a DMARC record with policy p=${policy.toLowerCase()}.`, found)
}
