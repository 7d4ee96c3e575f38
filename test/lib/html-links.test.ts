import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { isRedirectable, trackLinks } from '../../src/lib/html-links'

// Links only: no pixel.
const rewriteLinks = (html: string, wrap: (u: string) => string | null) => trackLinks(html, wrap, '')

describe('trackLinks: links', () => {
  const wrap = (u: string) => `https://t.example/c?u=${encodeURIComponent(u)}`

  test('wraps absolute http(s) hrefs of a and area, decoding entities; leaves the rest', () => {
    const html = [
      '<a href="https://a.example/x?y=1&amp;z=2">A</a>',
      "<area href='http://b.example/'>",
      '<a href="mailto:m@x.y">m</a>',
      '<a href="#top">t</a>',
      '<a href="/rel">r</a>',
    ].join(' ')
    const out = rewriteLinks(html, wrap)
    expect(out).toContain(`href="${wrap('https://a.example/x?y=1&z=2').replaceAll('&', '&amp;')}"`)
    expect(out).toContain(`href="${wrap('http://b.example/')}"`)
    expect(out).toContain('href="mailto:m@x.y"')
    expect(out).toContain('href="#top"')
    expect(out).toContain('href="/rel"')
  })

  test('an address with a control character (from data put into an href) stays untracked', () => {
    const html = '<a href="https://a.example/?ref=spring\nsale">A</a>'
    expect(rewriteLinks(html, wrap)).toBe(html)
  })

  test('a null from wrap keeps the link as written', () => {
    expect(rewriteLinks('<a href="https://own.example/u/1">u</a>', () => null)).toBe(
      '<a href="https://own.example/u/1">u</a>',
    )
  })
})

describe('isRedirectable', () => {
  test.each([
    ['https://a.example/x', true],
    ['http://a.example', true],
    ['javascript:alert(1)', false],
    ['https://a.example/\r\nX: y', false],
    ['not a url', false],
  ])('%s → %p', (url, ok) => expect(isRedirectable(url)).toBe(ok))
})

// The pixel as a second step would place it: before the first </body>, else at the end.
function appendToBody(html: string, tag: string): string {
  const i = html.search(/<\/body\s*>/i)
  return i === -1 ? html + tag : html.slice(0, i) + tag + html.slice(i)
}

describe('trackLinks: links and the pixel in one pass', () => {
  const wrap = (u: string) =>
    u.includes('own.example') ? null : `https://t.example/c/${encodeURIComponent(u)}`
  const pixel = '<img src="https://t.example/o/1">'

  test('the same document as links first, then the pixel as a second step, whatever the fragments', () => {
    const fragment = fc.constantFrom(
      '<a href="https://a.example/x?y=1&amp;z=2">A</a>',
      "<area href='http://b.example/'>",
      '<a href="mailto:m@x.y">m</a>',
      '<a href="https://own.example/u/1">u</a>',
      '<a href="https://a.example/?ref=spring\nsale">A</a>',
      '<A HREF="https://c.example/">C</A>',
      '</body>',
      '</BODY >',
      '<body>',
      '<p>text — with “quotes”</p>',
      '<a title="x">no href</a>',
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const html = parts.join('')
        expect(trackLinks(html, wrap, pixel)).toBe(appendToBody(rewriteLinks(html, wrap), pixel))
      }),
      { numRuns: 500 },
    )
  })

  test('the pixel goes before the first </body> only, or at the end without one', () => {
    expect(trackLinks('<body>x</body></body>', wrap, pixel)).toBe(`<body>x${pixel}</body></body>`)
    expect(trackLinks('<p>x</p>', wrap, pixel)).toBe(`<p>x</p>${pixel}`)
    expect(trackLinks('<html><body>x</BODY></html>', wrap, pixel)).toBe(`<html><body>x${pixel}</BODY></html>`)
  })

  test('a </body> inside an untracked link address is part of the link, not the end of the body', () => {
    const html = '<a href="https://a.example/</body>\nx">A</a><p>end</p>'
    expect(trackLinks(html, wrap, pixel)).toBe(`${html}${pixel}`)
  })
})
