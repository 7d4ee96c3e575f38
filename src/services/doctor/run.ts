import type { AppContext } from '../../context'
import type { DoctorCheck } from './check'
import { configurationChecks, diskCheck } from './configuration'
import { reachabilityChecks } from './reachability'
import { domainChecks, profileChecks } from './sending'

export type { DoctorCheck } from './check'

/** Every check of `herald doctor`, in the order the table shows them. */
export async function runDoctor(app: AppContext): Promise<DoctorCheck[]> {
  const [reach, doms, profiles] = await Promise.all([
    reachabilityChecks(app.config.publicUrl, () => app.clock.now()),
    await domainChecks(app),
    await profileChecks(app),
  ])
  return [...configurationChecks(app.config), diskCheck(app.config.dataDir), ...reach, ...doms, ...profiles]
}
