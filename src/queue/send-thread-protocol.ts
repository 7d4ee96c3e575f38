import type { Channel } from '../channels/types'
import type { Config } from '../config'
import type { ContactRow, MessageRow } from '../db/schema'
import type { ResolvedSender } from '../services/campaigns/sender'
import type { RenderedMessage } from '../services/templates/render'
import type { Composed } from './compose'

// The messages between the send queue (send-threads.ts, main thread) and a send thread
// (send-thread.ts). Everything is structured-cloned: plain data, no KeyObject, no compiled
// template. A plan goes to a thread once and is then named by its number.

/** What a thread needs of a plan to compose its messages; the DKIM key as PKCS#8 PEM. */
export interface PlanSpec {
  channel: Channel
  sender: ResolvedSender | null
  dkim: { domainName: string; keySelector: string; headerFieldNames: string; privateKey: string } | null
  idDomain: string
  variables: Record<string, unknown>
  bulk: boolean
  headers?: Record<string, string>
}

export interface SendJob {
  job: number
  plan: number
  message: Pick<MessageRow, 'id' | 'clientId' | 'to'>
  contact: ContactRow
  /** The provider stores what it sent (then the rendered bodies come back to be kept). */
  keepContent: boolean
  /** The message's template, rendered on the render pool (a send thread never renders). */
  rendered: RenderedMessage
  unsubscribeUrl: string
  /** The client's own SMTP account to send through (a `target` sent before), else the instance's provider. */
  target: string | null
}

export type ToThread =
  /** First message: the configuration, the tracking-token key, the provider kind of each channel served. */
  | { type: 'init'; config: Config; key: Uint8Array; kinds: Partial<Record<Channel, string>> }
  | { type: 'plan'; id: number; spec: PlanSpec }
  /** A client's own SMTP account: the thread opens a pool of `pool` connections to `url` for it. */
  | { type: 'target'; key: string; url: string; pool: number }
  /** A client's account was let go (its profile changed, or it sat idle): close its pool. */
  | { type: 'drop'; key: string }
  /** Drop every plan (the main thread's plan numbers start over). */
  | { type: 'forget' }
  /** Sends queued in one turn of the main thread, posted together. */
  | { type: 'send'; jobs: SendJob[] }
  /** Close the providers (their pools) and say `closed`. */
  | { type: 'close' }

/** How one job went. A provider's refusal is judged (retry or fail) by the main thread. */
export type JobAnswer =
  | { job: number; kind: 'sent'; delivered: boolean; providerMessageId: string | null; composed: Composed }
  | { job: number; kind: 'unrenderable'; error: string }
  | { job: number; kind: 'refused'; error: string; retryable: boolean }

export type FromThread =
  /** Set up (its providers made): from now on it may have sent what it was given. */
  | { type: 'ready' }
  /** Answers that came in one turn of the thread. */
  | { type: 'answers'; answers: JobAnswer[] }
  | { type: 'closed' }
