import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { parseIncompletePhoneNumber, parsePhoneNumberCharacter } from 'libphonenumber-js'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
// Not exported by the package: the unpatched source of the extension pattern.
// @ts-expect-error a plain JS module without types
import createExtensionPattern from '../../../node_modules/libphonenumber-js/es6/helpers/extension/createExtensionPattern.js'
import { normalizePhone } from '../../../src/services/contacts/normalize'

// patches/libphonenumber-js@1.13.16.patch rewrites parseIncompletePhoneNumber's loop for speed
// (issue 15: it was a third of a phone's parse). It must give the very string the library's own
// loop gives: that loop, copied here over the (unpatched) per-character step, is the reference.
function reference(string: string): string {
  let result = ''
  for (const character of string.split('')) result += parsePhoneNumberCharacter(character, result) || ''
  return result
}

// The patch also skips parsePhoneNumberWithError_'s options spread when no options are given:
// an empty options object still takes the library's own path, so the two must agree.
function viaSpread(value: string): string | null {
  const parsed = parsePhoneNumberFromString(value.trim(), {})
  return parsed?.isValid() ? parsed.number : null
}

// Digits of every script the library reads, `+`, punctuation people type, and anything else.
const phoneChar = fc.constantFrom(
  ...'0123456789+ -().x#;,ext',
  '０',
  '９',
  '٠',
  '٩',
  '۰',
  '۹',
  '\u00a0',
  'é',
  '😀',
  '\ud83d',
)
const phoneLike = fc.array(phoneChar, { maxLength: 30 }).map((cs) => cs.join(''))

describe('patched parseIncompletePhoneNumber', () => {
  test('gives what the unpatched loop gives', () => {
    fc.assert(
      fc.property(fc.oneof(phoneLike, fc.string(), fc.string({ unit: 'binary' })), (s) => {
        expect(parseIncompletePhoneNumber(s)).toBe(reference(s))
      }),
      { numRuns: 5000 },
    )
  })

  test('known cases', () => {
    expect(parseIncompletePhoneNumber('+1 (415) 555-0100')).toBe('+14155550100')
    expect(parseIncompletePhoneNumber('8 (800) 555')).toBe('8800555')
    expect(parseIncompletePhoneNumber('a+44+5')).toBe('+445')
    expect(parseIncompletePhoneNumber('4+4')).toBe('44')
    expect(parseIncompletePhoneNumber('+٤٤ ٢٠ ７９４６ 0958')).toBe('+442079460958')
  })

  test('a phone parsed without options reads as with empty options (the unpatched path)', () => {
    const realistic = fc
      .tuple(
        fc.constantFrom('+1 ', '+44 ', '+49 ', '+33 ', '+', '00', '0', ''),
        fc.array(fc.constantFrom(...'0123456789 -().'), { minLength: 3, maxLength: 16 }),
        fc.constantFrom('', ' ext. 12', ' x7', ';ext=3'),
      )
      .map(([a, b, c]) => a + b.join('') + c)
    fc.assert(
      fc.property(fc.oneof(realistic, phoneLike), (s) => {
        expect(normalizePhone(s)).toBe(viaSpread(s))
      }),
      { numRuns: 5000 },
    )
  })

  test('the extension fast path: a number of digits, spaces and + ( ) - . / never matches the pattern', () => {
    const pattern = new RegExp(`(?:${createExtensionPattern()})$`, 'i')
    const plain = fc
      .array(fc.constantFrom(...'0123456789+ ().-/'), { maxLength: 40 })
      .map((cs) => cs.join(''))
    fc.assert(
      fc.property(plain, (s) => {
        expect(s.search(pattern)).toBe(-1)
      }),
      { numRuns: 5000 },
    )
    // and an extension is still read where there is one
    expect(parsePhoneNumberFromString('+1 415 555 2671 ext. 12')?.ext).toBe('12')
    expect(parsePhoneNumberFromString('+1 415 555 2671 x7')?.ext).toBe('7')
    expect(parsePhoneNumberFromString('+1 415 555 2671,,3')?.ext).toBe('3')
    expect(parsePhoneNumberFromString('+1 415-555-2671 - 44#')?.ext).toBe('44')
    expect(normalizePhone('+1 415 555 2671 ext. 12')).toBe('+14155552671')
  })

  test('phones still normalise and refuse as before', () => {
    expect(normalizePhone('+44 20 7946 0958')).toBe('+442079460958')
    expect(normalizePhone('+1 (415) 555-2671')).toBe('+14155552671')
    expect(normalizePhone('+49 30 901820')).toBe('+4930901820')
    expect(normalizePhone('+٤٤ ٢٠ ٧٩٤٦ ٠٩٥٨')).toBe('+442079460958')
    expect(normalizePhone('+1 555')).toBeNull()
    expect(normalizePhone('4155552671')).toBeNull()
    expect(normalizePhone('+')).toBeNull()
  })
})
