// An email's HTML made quiet for the portal's viewers. Security does not rest on this: the HTML
// is only ever shown in `<iframe sandbox srcdoc>` (no script, no same origin), escaped into the
// attribute by the template engine. But a srcdoc document inherits the portal's CSP, so an
// email's scripts, inline styles and remote images would each be refused with a console error
// or a CSP report on every viewing. They are removed here, with Bun's HTMLRewriter (a real HTML
// parser), and the page says so; the raw source keeps everything.

const DROP = 'script, style, link, iframe, frame, object, embed, base, meta[http-equiv]'

export function inertHtml(html: string): string {
  return new HTMLRewriter()
    .on(DROP, {
      element(el) {
        el.remove()
      },
    })
    .on('*', {
      element(el) {
        const names = [...el.attributes].map(([name]) => name)
        for (const name of names) {
          const lower = name.toLowerCase()
          if (lower.startsWith('on') || lower === 'style' || lower === 'srcset') el.removeAttribute(name)
          else if (
            (lower === 'src' || lower === 'background' || lower === 'poster') &&
            !/^\s*data:/i.test(el.getAttribute(name) ?? '')
          )
            el.removeAttribute(name)
          else if (lower === 'href' && /^\s*(javascript|vbscript|data):/i.test(el.getAttribute(name) ?? ''))
            el.removeAttribute(name)
        }
      },
    })
    .transform(html)
}
