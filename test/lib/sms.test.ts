import { expect, test } from 'bun:test'
import { smsInfo } from '../../src/lib/sms'

test.each([
  ['', 'GSM-7', 0, 0],
  ['Hello', 'GSM-7', 5, 1],
  ['x'.repeat(160), 'GSM-7', 160, 1],
  ['x'.repeat(161), 'GSM-7', 161, 2],
  ['x'.repeat(306), 'GSM-7', 306, 2],
  ['x'.repeat(307), 'GSM-7', 307, 3],
  ['{[~]}', 'GSM-7', 10, 1],
  ['Prix: 5€ à Paris', 'GSM-7', 17, 1],
  ['ç', 'UCS-2', 1, 1],
  ['é'.repeat(70).replace(/é$/, 'ç'), 'UCS-2', 70, 1],
  ['ж'.repeat(134), 'UCS-2', 134, 2],
  ['ж'.repeat(135), 'UCS-2', 135, 3],
  ['😀', 'UCS-2', 2, 1],
] as const)('%p → %s, length %d, %d segment(s)', (text, encoding, length, segments) => {
  expect(smsInfo(text)).toEqual({ encoding, length, segments })
})
