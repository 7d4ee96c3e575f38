import { type Ctx, withActor } from '../../../context'
import { userActor } from '../../../services/actors/actor'
import type { PortalRequest } from '../types'

/**
 * The signed-in owner or admin acting in every workspace, whatever workspace the header has
 * chosen (they may choose "All workspaces" themselves): the clients and users pages administer
 * the instance, not one workspace. Anyone else keeps their own context, and the verbs refuse.
 */
export function platformCtx(req: PortalRequest): Ctx {
  const { role } = req.user
  if (role !== 'owner' && role !== 'admin') return req.ctx
  return withActor(
    req.ctx,
    userActor({ id: req.user.id, role, clients: req.user.clients, workspace: null }),
    req.ctx.requestId,
  )
}
