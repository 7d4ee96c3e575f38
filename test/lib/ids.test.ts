import { describe, expect, test } from 'bun:test'
import { decryptSecret, encryptSecret, randomBase62 } from '../../src/lib/crypto'
import { encodeCursor, readCursor } from '../../src/lib/cursor'
import {
  ID_PREFIXES,
  type IdKind,
  isUuid,
  newId,
  notAnIdMessage,
  parseId,
  sequencedId,
  toPrefixedId,
} from '../../src/lib/ids'

describe('ids', () => {
  test('UUIDv7 ids sort in creation order', () => {
    const ids = Array.from({ length: 50 }, () => newId())
    expect([...ids].sort()).toEqual(ids)
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('prefixed ids round-trip; anything else is null', () => {
    const id = newId()
    const prefixed = toPrefixedId('campaign', id)
    expect(prefixed).toMatch(/^cmp_[0-9a-f]{32}$/)
    expect(parseId(prefixed)).toBe(id)
    expect(parseId(id.toUpperCase())).toBe(id)
    for (const bad of ['', '123', 'cmp_xyz', `${id}x`, 'cmp-0193']) expect(parseId(bad)).toBeNull()
  })

  test('the refusal of a non-id names both forms parseId takes, for every kind', () => {
    expect(notAnIdMessage('client')).toBe('must be a client id (cli_… or a UUID)')
    expect(notAnIdMessage('apiKey')).toBe('must be an API key id (key_… or a UUID)')
    expect(notAnIdMessage('event')).toBe('must be an event id (evt_… or a UUID)')
    for (const kind of Object.keys(ID_PREFIXES) as IdKind[]) {
      const id = newId()
      const prefixed = toPrefixedId(kind, id)
      expect(notAnIdMessage(kind)).toContain(`(${prefixed.slice(0, 4)}… or a UUID)`)
      expect(parseId(prefixed)).toBe(id)
    }
  })
})

describe('secrets and cursors', () => {
  const key = new Uint8Array(32).fill(7)
  test('AES-256-GCM round-trips, and tampering or another key fails', () => {
    const sealed = encryptSecret(key, 'dkim private key')
    expect(sealed).not.toContain('dkim')
    expect(decryptSecret(key, sealed)).toBe('dkim private key')
    expect(encryptSecret(key, 'same')).not.toBe(encryptSecret(key, 'same')) // fresh IV
    expect(() => decryptSecret(new Uint8Array(32).fill(8), sealed)).toThrow()
    const parts = sealed.split(':')
    parts[3] = Buffer.from('other').toString('base64url')
    expect(() => decryptSecret(key, parts.join(':'))).toThrow()
  })

  test('cursors decode only when issued with the same key', () => {
    const c = encodeCursor(key, 'abc')
    expect(readCursor(key, c)).toEqual({ position: 'abc' })
    expect(readCursor(new Uint8Array(32), c)).toEqual({ refused: 'foreign' })
    expect(readCursor(key, 'x.y')).toEqual({ refused: 'foreign' })
    // Bound to its list and its query; limit, cursor and client_id are not part of the query.
    const q = encodeCursor(key, 'abc', 'lists', { status: 'a', limit: 5 })
    expect(readCursor(key, q, 'lists', { status: 'a', limit: 9, client_id: 'cli_x' })).toEqual({
      position: 'abc',
    })
    expect(readCursor(key, q, 'lists', { status: 'b' })).toEqual({ refused: 'other_query' })
    expect(readCursor(key, q, 'segments', { status: 'a' })).toEqual({ refused: 'foreign' })
  })

  test('random base62 keys have the expected length and alphabet', () => {
    const s = randomBase62(32)
    expect(s).toMatch(/^[0-9A-Za-z]{43}$/)
    expect(randomBase62(32)).not.toBe(s)
  })
})

describe('sequencedId', () => {
  test('records of one millisecond sort by their sequence number, whoever made them, as UUIDv7s', () => {
    const ms = Date.parse('2026-11-29T16:00:00.000Z')
    // Made in the reverse order, as two processes might: the ids still sort by seq, then by n.
    const made = [
      sequencedId(ms, 9_000_001, 0),
      sequencedId(ms, 9_000_000, 1),
      sequencedId(ms, 9_000_000, 0),
      sequencedId(ms - 1, 9_000_002, 0),
    ]
    expect([...made].sort()).toEqual([made[3]!, made[2]!, made[1]!, made[0]!])
    for (const id of made) {
      expect(isUuid(id)).toBe(true)
      expect(id[14]).toBe('7')
      expect('89ab').toContain(id[19]!)
      expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBeLessThanOrEqual(ms)
    }
    // The largest values still fit: 52 bits of seq, 22 of n.
    expect(sequencedId(ms, 2 ** 52 - 1, 0x3fffff)).toBe(
      `${ms.toString(16).padStart(12, '0').slice(0, 8)}-${ms.toString(16).padStart(12, '0').slice(8)}-7fff-bfff-ffffffffffff`,
    )
  })
})
