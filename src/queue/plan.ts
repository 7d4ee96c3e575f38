import type { Channel, DkimSigning, ProviderCapabilities } from '../channels/types'
import type { AppContext } from '../context'
import type { Outbox } from '../db/outbox'
import type { ClientRow } from '../db/schema'
import type { Awaitable } from '../lib/awaitable'
import type { ResolvedSender } from '../services/campaigns/sender'
import type { WarmupPlan } from '../services/deliverability/warmup'
import type { RenderableTemplate } from '../services/templates/render'

// What is the same for every message a source sends with one content (a campaign's, a
// template's), worked out once and reused: content, sender, DKIM key, variables.
// Sources cache their plans for a few seconds, so a changed sender or domain is picked up
// without a restart.

export interface SendPlan {
  channel: Channel
  /** The content to render: compiled and rendered off the main thread (render pool, send threads). */
  content: RenderableTemplate
  sender: ResolvedSender | null
  dkim: DkimSigning | null
  /** The signing domain's warm-up (a daily cap), when it is new and its mail reaches real inboxes. */
  warmup: WarmupPlan | null
  /** A suspended client's sends stop until it is active again. */
  clientSuspended: boolean
  /** Domain of the Message-ID: the sender's, else the public host. */
  idDomain: string
  /** What every recipient's render shares besides the contact (client, campaign…). */
  variables: Record<string, unknown>
  /** Bulk mail carries List-Unsubscribe and List-Unsubscribe-Post (RFC 8058). */
  bulk: boolean
  /** Headers of the source's own (a sequence step's In-Reply-To and References), names as written. */
  headers?: Record<string, string>
}

export const PLAN_TTL_MS = 5_000

export interface PlanInput {
  clientId: string
  channel: Channel
  content: RenderableTemplate
  sender: ResolvedSender | null
  variables: Record<string, unknown>
  bulk: boolean
}

/** What planning asks of the domain (part of SendDeps, deps.ts). */
export interface PlanDeps {
  /** The signing of mail from `fromEmail` with its domain's key; null when it has none. */
  dkimForSender(app: AppContext, clientId: string, fromEmail: string): Awaitable<DkimSigning | null>
  /** The warm-up a send from a new domain is under (starting it); null when over or off. */
  warmupFor(app: AppContext, clientId: string, domainName: string): Awaitable<WarmupPlan | null>
  /** What a template sees as `client.*` (its footer included). */
  clientVariables(
    app: AppContext,
    client: Pick<ClientRow, 'id' | 'name' | 'industry'>,
  ): Awaitable<Record<string, unknown>>
}

/** Builds plans; `capabilities` says whether the client's provider of a channel signs for real inboxes. */
export function createPlanner(
  app: AppContext,
  outbox: Outbox,
  capabilities: (clientId: string, channel: Channel) => Awaitable<ProviderCapabilities>,
  deps: PlanDeps,
) {
  const host = new URL(app.config.publicUrl).hostname
  return async function plan(input: PlanInput): Promise<SendPlan> {
    const client = await outbox.clientRow(input.clientId)
    if (!client) throw new Error('the client no longer exists')
    const { sender } = input
    const dkim =
      sender && (await capabilities(input.clientId, input.channel)).needsVerifiedSender
        ? await deps.dkimForSender(app, input.clientId, sender.fromEmail)
        : null
    return {
      channel: input.channel,
      content: input.content,
      clientSuspended: client.status !== 'active',
      sender,
      dkim,
      // Mail signed for real inboxes warms its domain up (capture and the simulator do not sign).
      warmup: dkim ? await deps.warmupFor(app, input.clientId, dkim.domainName) : null,
      idDomain: sender ? sender.fromEmail.slice(sender.fromEmail.lastIndexOf('@') + 1) : host,
      variables: { ...input.variables, client: await deps.clientVariables(app, client) },
      bulk: input.bulk,
    }
  }
}

export type Planner = ReturnType<typeof createPlanner>

/** Caught into an Error: a source whose plan cannot be made says why instead of throwing. */
export const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)))
