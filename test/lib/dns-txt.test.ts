import { describe, expect, test } from 'bun:test'
import { joinTxt, splitTxt } from '../../src/lib/dns-txt'

describe('splitTxt', () => {
  test('≤255-character strings that join back to the value', () => {
    const value = 'x'.repeat(600)
    const parts = splitTxt(value)
    expect(parts.map((p) => p.length)).toEqual([255, 255, 90])
    expect(parts.join('')).toBe(value)
    expect(splitTxt('short')).toEqual(['short'])
  })
})

describe('joinTxt', () => {
  const dkim = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`
  const [a, b] = [dkim.slice(0, 255), dkim.slice(255)]

  test('records that keep their strings (Node) are joined per record', () => {
    expect(joinTxt([[a, b], ['other']], false)).toEqual([dkim, 'other'])
  })

  test('Bun’s split answer (one record per string) is re-joined at a dedicated name', () => {
    expect(joinTxt([[a], [b]], true)).toEqual([dkim])
    expect(joinTxt([['k=rsa; p=AAA'], ['BBB']], true)).toEqual(['k=rsa; p=AAABBB'])
    expect(joinTxt([[a], [b], ['v=DKIM1; p=CC']], true)).toEqual([dkim, 'v=DKIM1; p=CC'])
  })

  test('at a shared name only a full 255-octet string continues; other records stay apart', () => {
    const spf = `v=spf1 ${'ip4:198.51.100.1 '.repeat(20)}-all`
    expect(joinTxt([['google=abc'], [spf.slice(0, 255)], [spf.slice(255)], ['ms=1']], false)).toEqual([
      'google=abc',
      spf,
      'ms=1',
    ])
    expect(joinTxt([['v=spf1 mx -all'], ['google=abc']], false)).toEqual(['v=spf1 mx -all', 'google=abc'])
  })
})
