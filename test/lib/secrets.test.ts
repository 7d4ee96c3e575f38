import { describe, expect, test } from 'bun:test'
import { maskSecret, maskSecretMembers } from '../../src/lib/secrets'

describe('masking secrets', () => {
  test('the kind stays readable, nothing of the value does', () => {
    expect(maskSecret('hrld_abcdefghijklmnop')).toBe('hrld_••••••••')
    expect(maskSecret('whsec_c2VjcmV0')).toBe('whsec_••••••••')
    expect(maskSecret('no-prefix-secret')).toBe('••••••••')
  })

  test('only the named string members are masked, on a copy', () => {
    const answer = { id: 'k1', key: 'hrld_secret', prefix: 'hrld_secr', password: null }
    expect(maskSecretMembers(answer, ['key', 'password'])).toEqual({
      id: 'k1',
      key: 'hrld_••••••••',
      prefix: 'hrld_secr',
      password: null,
    })
    expect(answer.key).toBe('hrld_secret')
    expect(maskSecretMembers([1], ['key'])).toEqual([1])
  })
})
