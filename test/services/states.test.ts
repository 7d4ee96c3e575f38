import { describe, expect, test } from 'bun:test'
import { ServiceError } from '../../src/errors'
import { assertAllowedFrom, stateMachine } from '../../src/services/states'

const rules = {
  activate: { from: ['draft'], done: 'activated' },
  archive: { from: ['draft', 'active'], done: 'archived' },
} as const

describe('assertAllowedFrom', () => {
  test('an allowed status passes', () => {
    expect(() => assertAllowedFrom('journey', 'draft', ['draft', 'paused'], 'activated')).not.toThrow()
  })

  test.each([
    [
      'journey',
      'active',
      ['draft', 'paused'],
      'activated',
      'An active journey cannot be activated; allowed from: draft, paused',
    ],
    [
      'campaign',
      'sent',
      ['draft', 'scheduled', 'paused'],
      'launched',
      'A sent campaign cannot be launched; allowed from: draft, scheduled, paused',
    ],
  ] as const)('%s %s: one 409 INVALID_STATE with status and allowed_from', (noun, status, allowed, done, message) => {
    let thrown: unknown
    try {
      assertAllowedFrom<string>(noun, status, allowed, done)
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(ServiceError)
    const err = thrown as ServiceError
    expect(err.code).toBe('INVALID_STATE')
    expect(err.message).toBe(message)
    expect(err.details).toEqual({ status, allowed_from: allowed })
  })
})

describe('stateMachine', () => {
  const machine = stateMachine<'draft' | 'active' | 'archived', typeof rules>('journey', rules)

  test('allows answers from the rule of the operation', () => {
    expect(machine.allows('draft', 'activate')).toBe(true)
    expect(machine.allows('active', 'activate')).toBe(false)
    expect(machine.allows('active', 'archive')).toBe(true)
  })

  test('assert refuses in the words of the rule, naming the states it allows', () => {
    expect(() => machine.assert('draft', 'activate')).not.toThrow()
    expect(() => machine.assert('archived', 'archive')).toThrow(
      'An archived journey cannot be archived; allowed from: draft, active',
    )
  })
})
