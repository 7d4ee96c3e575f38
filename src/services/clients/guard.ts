import type { Actor } from '../../context'
import { forbidden } from '../../errors'

/** Creating and administering clients is for platform-wide credentials. */
export function assertPlatformWide(actor: Actor, action: string): void {
  if (actor.clientId !== null)
    throw forbidden(`${action} needs a platform-wide key; this key is scoped to one client`, {
      required_scope: 'platform-wide key',
    })
}
