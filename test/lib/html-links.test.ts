import { describe, expect, test } from 'bun:test'
import { appendToBody, isRedirectable, rewriteLinks } from '../../src/lib/html-links'

describe('rewriteLinks', () => {
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

describe('isRedirectable and appendToBody', () => {
  test.each([
    ['https://a.example/x', true],
    ['http://a.example', true],
    ['javascript:alert(1)', false],
    ['https://a.example/\r\nX: y', false],
    ['not a url', false],
  ])('%s → %p', (url, ok) => expect(isRedirectable(url)).toBe(ok))

  test('the pixel goes before </body>, or at the end without one', () => {
    expect(appendToBody('<html><body>x</BODY></html>', '<img>')).toBe('<html><body>x<img></BODY></html>')
    expect(appendToBody('<p>x</p>', '<img>')).toBe('<p>x</p><img>')
  })
})
