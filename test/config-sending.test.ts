import { expect, test } from 'bun:test'
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
