import { expect, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { ConfigError, loadConfig } from '../src/config'

test('HERALD_SPF_INCLUDE and HERALD_SENDING_IP: validated, off by default', () => {
  expect(loadConfig({}, {})).toMatchObject({ spfInclude: null, sendingIp: null })
  expect(loadConfig({}, { HERALD_SPF_INCLUDE: 'SPF.Mail.Example.com' }).spfInclude).toBe(
    'spf.mail.example.com',
  )
  expect(loadConfig({}, { HERALD_SENDING_IP: '192.0.2.10' }).sendingIp).toBe('192.0.2.10')
  expect(loadConfig({}, { HERALD_SENDING_IP: '2001:DB8::1' }).sendingIp).toBe('2001:db8::1')
  expect(() => loadConfig({}, { HERALD_SPF_INCLUDE: 'not a host' })).toThrow(ConfigError)
  expect(() => loadConfig({}, { HERALD_SPF_INCLUDE: 'include:spf.example.com' })).toThrow(
    /HERALD_SPF_INCLUDE/,
  )
  expect(() => loadConfig({}, { HERALD_SENDING_IP: '192.0.2.300' })).toThrow(/HERALD_SENDING_IP/)
})

test('HERALD_SEND_THREADS: one per two cores by default, 0 keeps sending on the main thread, validated', () => {
  expect(loadConfig({}, {}).sendThreads).toBe(
    Math.max(1, Math.min(8, Math.floor(availableParallelism() / 2))),
  )
  expect(loadConfig({}, { HERALD_SEND_THREADS: '0' }).sendThreads).toBe(0)
  expect(loadConfig({}, { HERALD_SEND_THREADS: '3' }).sendThreads).toBe(3)
  expect(() => loadConfig({}, { HERALD_SEND_THREADS: 'many' })).toThrow(
    /HERALD_SEND_THREADS must be a whole number/,
  )
  expect(() => loadConfig({}, { HERALD_SEND_THREADS: '65' })).toThrow(
    /HERALD_SEND_THREADS must be between 0 and 64/,
  )
})

test('lease lengths: minutes by default, settable, and a send lease outlasts the send timeout', () => {
  expect(loadConfig({}, {})).toMatchObject({
    sendLeaseMs: 300_000,
    webhookLeaseMs: 600_000,
    importLeaseMs: 60_000,
  })
  expect(
    loadConfig(
      {},
      { HERALD_SEND_LEASE_MS: '5000', HERALD_SEND_TIMEOUT_MS: '4000', HERALD_WEBHOOK_LEASE_MS: '3000' },
    ),
  ).toMatchObject({ sendLeaseMs: 5000, sendTimeoutMs: 4000, webhookLeaseMs: 3000 })
  expect(() => loadConfig({}, { HERALD_SEND_LEASE_MS: '30000' })).toThrow(
    'HERALD_SEND_LEASE_MS (30000) must be longer than HERALD_SEND_TIMEOUT_MS (30000)',
  )
  expect(() => loadConfig({}, { HERALD_IMPORT_LEASE_MS: '999' })).toThrow(/HERALD_IMPORT_LEASE_MS/)
})

test('HERALD_DATABASE_URL opens the PostgreSQL store; any other scheme is refused', () => {
  expect(() => loadConfig({}, { HERALD_DATABASE_URL: 'mysql://herald@db/herald' })).toThrow(
    'HERALD_DATABASE_URL must be a postgres:// or postgresql:// URL',
  )
  const config = loadConfig({}, { HERALD_DATABASE_URL: 'postgresql://herald:pw@db/herald' })
  expect(config.databaseUrl).toBe('postgresql://herald:pw@db/herald')
  expect(loadConfig({}, { HERALD_DATABASE_URL: ' postgres://herald@db/herald ' }).databaseUrl).toBe(
    'postgres://herald@db/herald',
  )
  expect(loadConfig({}, {}).databaseUrl).toBeNull()
})
