import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'

// deploy/systemd/herald.service as systemd reads it. verify needs ExecStart's binary to exist, so
// a copy of the unit points at the binary under test; everything else is the file as shipped.
// Warnings (an unknown key, a bad value) count as failures: verify exits 0 on them.

const UNIT = join(import.meta.dir, '../../deploy/systemd/herald.service')
const ANALYZE = '/usr/bin/systemd-analyze'
const text = readFileSync(UNIT, 'utf8')
const bin = useBinary('herald-unit-')

describe('the systemd unit', () => {
  test('passes systemd-analyze verify without a warning', () => {
    if (!existsSync(ANALYZE)) throw new Error(`no ${ANALYZE}: apt-get install systemd`)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: systemd's own ${} expansion
    expect(text).toContain('ExecStart=/usr/local/bin/herald serve --data ${STATE_DIRECTORY}')
    const copy = join(bin.work, 'herald.service')
    writeFileSync(copy, text.replace('ExecStart=/usr/local/bin/herald', `ExecStart=${bin.path()}`))
    const r = Bun.spawnSync([ANALYZE, 'verify', copy], { env: { ...process.env, SYSTEMD_LOG_COLOR: '0' } })
    const said = `${r.stdout.toString()}${r.stderr.toString()}`.trim()
    expect(said).toBe('')
    expect(r.exitCode).toBe(0)
  })

  test.each([
    'DynamicUser=yes',
    'StateDirectory=herald',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'CapabilityBoundingSet=\n',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    'SystemCallFilter=@system-service',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30s',
  ])('sets %p', (line) => {
    expect(text).toContain(line)
  })
})
