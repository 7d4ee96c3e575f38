import type { Flags } from '../config'
import { type DoctorCheck, runDoctor } from '../services/doctor/run'
import { withOfflineContextAsync } from './offline'

/** `check | status | detail` with the columns padded, for a terminal. */
export function doctorTable(checks: readonly DoctorCheck[]): string {
  const rows = [{ name: 'check', status: 'status', detail: 'detail' }, ...checks]
  const w = Math.max(...rows.map((r) => r.name.length))
  return `${rows.map((r) => `${r.name.padEnd(w)}  ${r.status.padEnd(6)}  ${r.detail}`).join('\n')}\n`
}

/** Runs every check against the data directory and the settings; exit 1 when one fails. */
export async function doctorCommand(flags: Flags): Promise<number> {
  const checks = await withOfflineContextAsync(flags, runDoctor)
  process.stdout.write(doctorTable(checks))
  const failed = checks.filter((c) => c.status === 'fail').length
  const warned = checks.filter((c) => c.status === 'warn').length
  process.stdout.write(`\n${failed} failed, ${warned} to look at, ${checks.length - failed - warned} ok\n`)
  return failed > 0 ? 1 : 0
}
