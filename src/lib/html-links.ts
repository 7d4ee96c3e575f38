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
  return html.replace(HREF, (whole, start: string, _quote: string, raw: string) => {
    const url = decodeEntities(raw)
    if (!isRedirectable(url)) return whole
    const replaced = wrap(url)
    return replaced === null ? whole : `${start}"${escapeAttr(replaced)}"`
  })
}

/** Puts `tag` just before </body>, or at the end when the document has none. */
export function appendToBody(html: string, tag: string): string {
  const i = html.search(/<\/body\s*>/i)
  return i === -1 ? html + tag : html.slice(0, i) + tag + html.slice(i)
}
