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

/** Replaces each tracked href with `wrap(url)`; `url` is the decoded address as the reader sees it. */
export function rewriteLinks(html: string, wrap: (url: string) => string | null): string {
  return html.replace(HREF, (whole, start: string, _quote: string, raw: string) => {
    const replaced = wrap(decodeEntities(raw))
    return replaced === null ? whole : `${start}"${escapeAttr(replaced)}"`
  })
}

/** Puts `tag` just before </body>, or at the end when the document has none. */
export function appendToBody(html: string, tag: string): string {
  const i = html.search(/<\/body\s*>/i)
  return i === -1 ? html + tag : html.slice(0, i) + tag + html.slice(i)
}
