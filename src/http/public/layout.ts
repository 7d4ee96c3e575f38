import { createHash } from 'node:crypto'
import { escapeHtml } from '../../lib/html-escape'
import type { Footer } from '../../services/sending-profiles/footer'

export { escapeHtml }

// The one small layout of every page a contact sees (unsubscribe, preference centre, signup form,
// confirmation): the client's name on top, the sender of record underneath, one inline style
// allowed by its hash and no script at all. Never the portal's navigation.

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#222}header{color:#555;font-weight:600;margin-bottom:1.5rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=email],input[type=tel]{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #888;border-radius:.3rem}label.check{display:flex;gap:.5rem;align-items:baseline}button{font:inherit;margin-top:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #444;background:#222;color:#fff;cursor:pointer}.hp{position:absolute;left:-9999px}footer{margin-top:2rem;color:#666}'

/** The pages' policy: their one style, forms posting back to Herald, nothing may frame them. */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`

/** Who sends, and their postal address (CAN-SPAM). */
export const senderOfRecord = (f: Footer) =>
  f.company || f.postal_address
    ? `<footer><small>${[f.company, f.postal_address]
        .filter((x): x is string => !!x)
        .map(escapeHtml)
        .join(' · ')}</small></footer>`
    : ''

export interface PublicPage {
  title: string
  /** Already-escaped HTML of the page's body. */
  body: string
  /** The client the page speaks for: its name heads the page, its address ends it. */
  from?: Footer
}

export const publicPage = ({ title, body, from }: PublicPage) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${from?.company ? `<header>${escapeHtml(from.company)}</header>` : ''}<main>${body}</main>${from ? senderOfRecord(from) : ''}</body></html>`

/** A public page as a response: never cached (it names a person), with the pages' policy. */
export const htmlResponse = (status: number, html: string, headers: Record<string, string> = {}) =>
  new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'cache-control': 'no-store, private',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...headers,
    },
  })
