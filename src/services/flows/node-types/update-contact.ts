import { LINE_PATTERN, notOneOf } from '../../../lib/validate'
import { type NodeSpec, nextOf } from './spec'

const LINE = new RegExp(LINE_PATTERN)
const CONTACT_FIELDS = ['first_name', 'last_name', 'company', 'timezone', 'status', 'custom_fields']
const SETTABLE_STATUSES = ['subscribed', 'unsubscribed', 'blocked']

/** Sets some of the contact's fields (an unsubscribe made here is recorded as one). */
export const updateContact: NodeSpec = {
  members: ['fields', 'next'],
  check(c) {
    const f = c.node.fields as Record<string, unknown> | undefined
    if (!f || typeof f !== 'object' || Array.isArray(f) || Object.keys(f).length === 0)
      return c.err('fields', `must be an object with some of: ${CONTACT_FIELDS.join(', ')}`)
    for (const [k, v] of Object.entries(f)) {
      const p = `fields.${k}`
      if (!CONTACT_FIELDS.includes(k))
        c.err(p, `is not a field a journey may set; use: ${CONTACT_FIELDS.join(', ')}`)
      else if (k === 'status') {
        if (!SETTABLE_STATUSES.includes(v as string)) c.err(p, notOneOf(v, SETTABLE_STATUSES))
      } else if (k === 'timezone') {
        if (v !== null && (typeof v !== 'string' || !c.refs.timeZone(v)))
          c.err(p, 'must be an IANA time zone or null')
      } else if (k === 'custom_fields') {
        if (!v || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length > 100)
          c.err(p, 'must be an object of at most 100 members (null removes one)')
        else
          for (const [ck, cv] of Object.entries(v))
            if (ck.length === 0 || ck.length > 64) c.err(`${p}.${ck}`, 'keys are 1 to 64 characters')
            else if (cv !== null && JSON.stringify(cv).length > 2048) c.err(`${p}.${ck}`, 'is over 2 KiB')
      } else if (v !== null && (typeof v !== 'string' || v.length > 200 || !LINE.test(v)))
        c.err(p, 'must be one line of at most 200 characters, or null')
    }
  },
  async step(s, node) {
    s.count(node)
    await s.act.apply(node)
    s.history({ node: node.id }, node.id)
    return nextOf(node)
  },
}
