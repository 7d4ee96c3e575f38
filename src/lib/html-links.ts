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
 * One matched href (`whole`: its `start` and `raw` address) as trackLinks writes it: `wrap(url)`
 * of the decoded address as the reader sees it, or the link as written when the address could not
 * be redirected to or `wrap` answers null.
 */
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
 * Wraps each tracked href and puts `tag` (the open pixel; '' for none) just before the first
 * </body>, or at the end without one, in one pass over the HTML: the send path composes every
 * recipient's copy with it, and doing it in two steps made two more copies of the whole document
 * per message, garbage that a long send's peak memory is made of. A </body> written
 * inside a link's address is part of the link, not the end of the body.
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
