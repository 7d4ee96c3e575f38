// Link rewriting for click tracking. Only absolute http(s) hrefs of <a> and <area> tags are
// rewritten; mailto:, tel:, anchors and Herald's own links are left alone.

const HREF = /(<(?:a|area)\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']*)\2/gi

const decodeEntities = (s: string) =>
  s.replace(/&(amp|quot|#39|#x27|lt|gt);/gi, (_, e: string) => {
    switch (e.toLowerCase()) {
      case 'amp':
        return '&'
      case 'quot':
        return '"'
      case 'lt':
        return '<'
      case 'gt':
        return '>'
      default:
        return "'"
    }
  })

const escapeAttr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;')

/**
 * An address a redirect can lead to: parses as http(s) and holds no control characters (a line
 * break from data put into an href would make an invalid Location header).
 */
export function isRedirectable(url: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(url)) return false
  try {
    const u = new URL(url)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * Replaces each tracked href with `wrap(url)`; `url` is the decoded address as the reader sees
 * it. Addresses that could not be redirected to are left as they are, untracked.
 */
export function rewriteLinks(html: string, wrap: (url: string) => string | null): string {
  return html.replace(HREF, (whole, start: string, _quote: string, raw: string) =>
    trackedHref(whole, start, raw, wrap),
  )
}

/** One matched href (`whole`: its `start` and `raw` address) as rewriteLinks and trackLinks write it. */
function trackedHref(
  whole: string,
  start: string,
  raw: string,
  wrap: (url: string) => string | null,
): string {
  const url = decodeEntities(raw)
  if (!isRedirectable(url)) return whole
  const replaced = wrap(url)
  return replaced === null ? whole : `${start}"${escapeAttr(replaced)}"`
}

const BODY_END = /<\/body\s*>/i
const HREF_OR_BODY_END = new RegExp(`${HREF.source}|${BODY_END.source}`, 'gi')

/**
 * rewriteLinks then appendToBody in one pass over the HTML: the send path composes every
 * recipient's copy with it, and the two steps made two more copies of the whole document per
 * message (the rewritten one, then the pixel's concatenation, flattened again when stored),
 * garbage that a long send's peak memory is made of (issue 11). Same result as the two steps,
 * except that a </body> written inside a link's address is part of the link, not the end of the
 * body (the two steps put the pixel inside such an untracked address).
 */
export function trackLinks(html: string, wrap: (url: string) => string | null, tag: string): string {
  let placed = false
  const out = html.replace(HREF_OR_BODY_END, (whole, start?: string, _quote?: string, raw?: string) => {
    if (start === undefined || raw === undefined) {
      if (placed) return whole
      placed = true
      return tag + whole
    }
    return trackedHref(whole, start, raw, wrap)
  })
  return placed ? out : out + tag
}

/** Puts `tag` just before </body>, or at the end when the document has none. */
export function appendToBody(html: string, tag: string): string {
  const i = html.search(BODY_END)
  return i === -1 ? html + tag : html.slice(0, i) + tag + html.slice(i)
}
