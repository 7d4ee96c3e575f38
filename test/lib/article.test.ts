import { expect, test } from 'bun:test'
import { a } from '../../src/lib/article'

test.each([
  ['email', 'an email'],
  ['active', 'an active'],
  ['update_contact', 'an update_contact'],
  ['sms', 'an sms'],
  ['rcs', 'an rcs'],
  ['voice', 'a voice'],
  ['whatsapp', 'a whatsapp'],
  ['draft', 'a draft'],
  ['segment_entered', 'a segment_entered'],
  ['smsx', 'a smsx'],
])('a(%p) → %p', (word, said) => {
  expect(a(word)).toBe(said)
})
