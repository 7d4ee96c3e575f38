import { existsSync, statfsSync } from 'node:fs'
import { join } from 'node:path'
import { type Config, configSources } from '../../config'
import { SECRET_FILE } from '../../db/data-dir'
import { type DoctorCheck, fail, ok, warn } from './check'

const GIB = 1024 ** 3

/** What the settings alone can tell: the public URL, the secret key, the providers. */
export function configurationChecks(config: Config): DoctorCheck[] {
  const out: DoctorCheck[] = []
  const sources = configSources(config)
  const url = new URL(config.publicUrl)
  const local = /^(localhost|127\.|\[::1\])/.test(url.host)
  if (sources?.publicUrl?.source === 'default')
    out.push(
      warn('public URL', `HERALD_PUBLIC_URL is not set: links and tracking point to ${config.publicUrl}`),
    )
  else if (local)
    out.push(warn('public URL', `${config.publicUrl} is local: recipients cannot reach its links`))
  else if (url.protocol !== 'https:')
    out.push(
      warn('public URL', `${config.publicUrl} is not https: set HERALD_PUBLIC_URL to the https address`),
    )
  else out.push(ok('public URL', config.publicUrl))
  if (config.secretKey) out.push(ok('secret key', 'HERALD_SECRET_KEY'))
  else if (existsSync(join(config.dataDir, SECRET_FILE)))
    out.push(ok('secret key', `${join(config.dataDir, SECRET_FILE)} (back it up apart from the data file)`))
  else out.push(fail('secret key', `neither HERALD_SECRET_KEY nor ${SECRET_FILE} in ${config.dataDir}`))
  if (config.emailProvider === 'capture')
    out.push(warn('email provider', 'capture: email is stored, never sent (set HERALD_SMTP_URL to send)'))
  else out.push(ok('email provider', config.emailProvider))
  if (!config.backupDir) out.push(warn('backups', 'HERALD_BACKUP_DIR is not set: no scheduled backups'))
  else out.push(ok('backups', `${config.backupDir}, ${config.backupEvery}, keep ${config.backupKeep}`))
  return out
}

/** Free space on the data volume: at least 1 GiB or 5 % of it (what readiness asks too). */
export function diskCheck(dataDir: string): DoctorCheck {
  const s = statfsSync(dataDir)
  const free = s.bavail * s.bsize
  const total = s.blocks * s.bsize
  const detail = `${(free / GIB).toFixed(1)} GiB free of ${(total / GIB).toFixed(1)} GiB on ${dataDir}`
  return free >= GIB || free >= total * 0.05 ? ok('disk', detail) : fail('disk', `${detail}: free some space`)
}
