import { describe, expect, test } from 'bun:test'
import { snippetOf } from '../../src/services/messages/snippet'

describe('snippetOf: what a reply newly says', () => {
  const rows: [string, string, string][] = [
    ['plain text', 'Yes, Tuesday works.\nThanks', 'Yes, Tuesday works. Thanks'],
    ['"> " quoting', 'Sure.\n\n> Hi Ann\n> Want a demo?', 'Sure.'],
    ['one-line attribution', 'Sure.\n\nOn Mon, Mar 2, 2026 at 10:00 AM Acme <a@b.c> wrote:\n> Hi', 'Sure.'],
    [
      "Gmail's attribution wrapped over two lines",
      'Sure.\n\nOn Mon, Mar 2, 2026 at 10:00 AM Acme Marketing <\nreply+abc@in.example.com> wrote:\n> Hi',
      'Sure.',
    ],
    [
      '"wrote:" alone on the third line',
      'Sure.\nOn Mon, Mar 2, 2026 at 10:00 AM Acme Marketing\n<reply+abc@in.example.com>\nwrote:\n\n> Hi',
      'Sure.',
    ],
    ['French', 'Oui.\nLe lun. 2 mars 2026 à 10:00, Acme <a@b.c> a écrit :\n> Salut', 'Oui.'],
    ['German', 'Ja.\nAm Mo., 2. März 2026 um 10:00 Uhr schrieb Acme <a@b.c>:\n> Hallo', 'Ja.'],
    ['Outlook original message', 'Ok\n-----Original Message-----\nFrom: Acme', 'Ok'],
    ['Outlook From: block', 'Ok\n\nFrom: Acme <a@b.c>\nSent: Monday', 'Ok'],
    ['signature', 'Ok\n-- \nAnn Lee\nCEO', 'Ok'],
    ['CRLF line ends', 'Yes\r\n\r\n> quoted\r\n', 'Yes'],
    [
      'a line starting with "On" that is not an attribution',
      'On Monday I will call you.\nBest, Ann',
      'On Monday I will call you. Best, Ann',
    ],
  ]
  for (const [name, text, expected] of rows)
    test(name, () => {
      expect(snippetOf(text)).toBe(expected)
    })

  test('long text is cut at 200 characters with an ellipsis', () => {
    const s = snippetOf('word '.repeat(100))
    expect(s).toHaveLength(200)
    expect(s.endsWith('…')).toBe(true)
  })
})
