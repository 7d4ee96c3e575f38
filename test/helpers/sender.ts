import { afterAll } from 'bun:test'
import type { Channel, ChannelProvider, Outgoing, SendResult } from '../../src/channels/types'
import { type SendWorkerOptions, startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import type { TestApp } from './app'

/** A provider that records what it was given and answers with `answer` (default: delivered). */
export function recordingProvider(
  name = 'capture',
  answer: (m: Outgoing, n: number) => Promise<SendResult> | SendResult = () => ({
    providerMessageId: null,
    delivered: true,
  }),
) {
  const sent: Outgoing[] = []
  const provider: ChannelProvider & { sent: Outgoing[] } = {
    name,
    // Like capture: the rendered bodies are kept, delivery is known at once, any sender will do.
    capabilities: { storesContent: true, reportsDelivery: false, needsVerifiedSender: false },
    sent,
    async send(m) {
      const r = await answer(m, sent.length)
      sent.push(m)
      return r
    },
    async close() {},
  }
  return provider
}

/** The same provider for every channel. */
export const allChannels = (provider: ChannelProvider) =>
  Object.fromEntries(
    (['email', 'sms', 'voice', 'whatsapp', 'rcs'] as Channel[]).map((c) => [c, provider]),
  ) as Record<Channel, ChannelProvider>

/** Starts the send worker on the test app with `provider` for every channel; stopped after the file. */
export function startTestSender(
  t: TestApp,
  provider: ChannelProvider = recordingProvider(),
  options: Partial<SendWorkerOptions> = {},
) {
  const worker = startSendWorker(t.ctx, sendDeps, {
    providers: allChannels(provider),
    pollMs: 10,
    ...options,
  })
  afterAll(() => worker.stop())
  return worker
}
