import { describe, expect, test } from 'bun:test'
import { configSources, loadConfig, SETTING_NAMES } from '../src/config'

// Where each setting came from (the portal's settings page): recorded beside the config by
// loadConfig, with its precedence (flag > non-empty environment variable > default), and without
// changing the config itself.

describe('configSources', () => {
  test('flag, environment or default, per setting', () => {
    const config = loadConfig(
      { port: '9000', data: '/tmp/herald-sources' },
      { HERALD_PORT: '8000', HERALD_HOST: '127.0.0.1', HERALD_SENDING_IP: '', HERALD_LOG: 'pretty' },
    )
    const sources = configSources(config)!
    expect(config.port).toBe(9000)
    expect(sources.port).toEqual({ source: 'flag', env: 'HERALD_PORT', flag: '--port' })
    expect(sources.host).toEqual({ source: 'env', env: 'HERALD_HOST', flag: '--host' })
    expect(sources.dataDir?.source).toBe('flag')
    expect(sources.log?.source).toBe('env')
    // An empty variable is the default, as loadConfig reads it.
    expect(config.sendingIp).toBeNull()
    expect(sources.sendingIp?.source).toBe('default')
    expect(sources.smtpPool).toEqual({ source: 'default', env: 'HERALD_SMTP_POOL', flag: null })
    expect(Object.keys(sources).sort()).toEqual(Object.keys(config).sort())
    expect(Object.keys(SETTING_NAMES).sort()).toEqual(Object.keys(config).sort())
  })

  test('a config not made by loadConfig has no sources; the config is still frozen', () => {
    const config = loadConfig({}, {})
    expect(Object.isFrozen(config)).toBe(true)
    expect(configSources({ ...config })).toBeNull()
  })
})
