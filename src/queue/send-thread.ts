import { createPrivateKey, type KeyObject } from 'node:crypto'
import { createProvider } from '../channels/registry'
import { type Channel, type ChannelFeedback, type ChannelProvider, ProviderError } from '../channels/types'
import type { Config } from '../config'
import { type Composed, type ComposePlan, composeRendered } from './compose'
import { sendWithin } from './deadline'
import type { FromThread, JobAnswer, PlanSpec, SendJob, ToThread } from './send-thread-protocol'

// A send thread (send-threads.ts starts them; an entry point of the build, see scripts/build.ts):
// composes each message it is given (its render, made on the render pool, with tracking links,
// List-Unsubscribe, MIME), has its own
// provider sign and send it (the SMTP pool and its conversation live here), and answers how it
// went. It holds nothing durable: the main thread claimed the messages and records the answers,
// so a thread that dies loses only answers, and those messages stay leased until retried.

declare const self: Worker

interface Setup {
  config: Config
  key: Buffer
  providers: Partial<Record<Channel, ChannelProvider>>
}
let setup: Setup | null = null
const plans = new Map<number, ComposePlan | Error>()
/** The providers of clients' own SMTP accounts, by target key. */
const targets = new Map<string, ChannelProvider>()

// Providers that run off the main thread report nothing after the send (no status callbacks,
// no simulated traffic): their feedback has nowhere to go from here.
const none = (): never => {
  throw new Error('a provider on a send thread cannot report feedback')
}
const noFeedback: ChannelFeedback = {
  messageOf: none,
  now: () => Date.now(),
  delivered: none,
  failed: none,
  opened: none,
  clicked: none,
  bounced: none,
  replied: none,
}

function init(config: Config, key: Uint8Array, kinds: Partial<Record<Channel, string>>): Setup {
  const byKind = new Map<string, ChannelProvider>()
  const providers: Partial<Record<Channel, ChannelProvider>> = {}
  for (const [channel, kind] of Object.entries(kinds) as [Channel, string][]) {
    if (!byKind.has(kind)) byKind.set(kind, createProvider(kind, config, noFeedback))
    providers[channel] = byKind.get(kind)!
  }
  return { config, key: Buffer.from(key), providers }
}

// A parsed key per PEM: a transactional message brings a plan of its own, with the same key.
const keys = new Map<string, KeyObject>()
function keyOf(pem: string): KeyObject {
  let key = keys.get(pem)
  if (!key) {
    if (keys.size >= 100) keys.clear()
    key = createPrivateKey(pem)
    keys.set(pem, key)
  }
  return key
}

const planOf = (spec: PlanSpec): ComposePlan => ({
  channel: spec.channel,
  variables: spec.variables,
  idDomain: spec.idDomain,
  bulk: spec.bulk,
  headers: spec.headers,
  sender: spec.sender,
  dkim: spec.dkim && { ...spec.dkim, privateKey: keyOf(spec.dkim.privateKey) },
})

/** What goes back to be recorded: the bodies only when the provider keeps them; never the key. */
function recorded(c: Composed, keepContent: boolean): Composed {
  if (c.outgoing.channel !== 'email') return c
  if (keepContent) return { ...c, outgoing: { ...c.outgoing, dkim: null } }
  return {
    ...c,
    rendered: { subject: c.rendered.subject, body_html: null, body_text: null },
    outgoing: { ...c.outgoing, html: null, text: null, dkim: null },
  }
}

async function run(s: Setup, job: SendJob): Promise<JobAnswer> {
  const plan = plans.get(job.plan)
  if (plan instanceof Error) return { job: job.job, kind: 'unrenderable', error: plan.message }
  // A plan or provider missing here is the threads' bookkeeping, not the message: send it again.
  if (!plan)
    return {
      job: job.job,
      kind: 'refused',
      error: 'the send thread lost its plan; sent again',
      retryable: true,
    }
  const provider = job.target === null ? s.providers[plan.channel] : targets.get(job.target)
  if (!provider)
    return job.target === null
      ? { job: job.job, kind: 'unrenderable', error: `no ${plan.channel} provider on the send thread` }
      : { job: job.job, kind: 'refused', error: 'the SMTP account was let go; sent again', retryable: true }
  let composed: Composed
  try {
    composed = composeRendered(
      s.config,
      s.key,
      plan,
      job.message,
      job.contact,
      provider.callback?.path ?? null,
      job.rendered,
      job.unsubscribeUrl,
    )
  } catch (err) {
    return { job: job.job, kind: 'unrenderable', error: (err as Error).message }
  }
  try {
    const r = await sendWithin(provider, composed.outgoing, s.config.sendTimeoutMs)
    return {
      job: job.job,
      kind: 'sent',
      delivered: r.delivered,
      providerMessageId: r.providerMessageId,
      composed: recorded(composed, job.keepContent),
    }
  } catch (err) {
    return {
      job: job.job,
      kind: 'refused',
      error: (err as Error).message || String(err),
      retryable: !(err instanceof ProviderError) || err.retryable,
    }
  }
}

// Answers of one turn go back in one message: fewer hops for the main thread to take.
let answers: JobAnswer[] = []
const post = (m: FromThread) => self.postMessage(m)
function answer(a: JobAnswer) {
  if (answers.push(a) === 1)
    setImmediate(() => {
      const batch = answers
      answers = []
      post({ type: 'answers', answers: batch })
    })
}

self.onmessage = (event: MessageEvent<ToThread>) => {
  const m = event.data
  switch (m.type) {
    case 'init':
      setup = init(m.config, m.key, m.kinds)
      post({ type: 'ready' })
      break
    case 'plan':
      try {
        plans.set(m.id, planOf(m.spec))
      } catch (err) {
        plans.set(m.id, err instanceof Error ? err : new Error(String(err)))
      }
      break
    case 'forget':
      plans.clear()
      break
    case 'target':
      if (!targets.has(m.key))
        targets.set(
          m.key,
          createProvider('smtp', { ...setup!.config, smtpUrl: m.url, smtpPool: m.pool }, noFeedback),
        )
      break
    case 'drop':
      void targets.get(m.key)?.close()
      targets.delete(m.key)
      break
    case 'send':
      for (const job of m.jobs) void run(setup!, job).then(answer)
      break
    case 'close':
      void Promise.all(
        [...Object.values(setup?.providers ?? {}), ...targets.values()].map((p) => p.close()),
      ).finally(() => post({ type: 'closed' }))
      break
  }
}
