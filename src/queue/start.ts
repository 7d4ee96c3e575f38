import { closeProviders, createProviders, kindsOf } from '../channels/registry'
import type { Channel } from '../channels/types'
import type { AppContext } from '../context'
import type { SendDeps } from './deps'
import type { LeasedWorker } from './leased-worker'
import { createSendThreads, type SendThreads } from './send-threads'
import { createSendWorker } from './worker'

/**
 * The instance's sending: providers from the configuration, their feedback, the send threads
 * for the channels whose provider runs off the main thread (SMTP), and the worker; the domain's
 * part comes in `deps` (src/sending.ts). Clients' own SMTP accounts go through the same threads;
 * when no instance channel needs them, they start with the first such send.
 */
export function startSending(app: AppContext, deps: SendDeps): LeasedWorker {
  const providers = createProviders(app.config, deps.feedback(app))
  const kinds = kindsOf(app.config)
  const offThread = Object.fromEntries(
    (Object.entries(providers) as [Channel, (typeof providers)[Channel]][])
      .filter(([, provider]) => provider.capabilities.offThread)
      .map(([channel]) => [channel, kinds[channel]]),
  )
  const create = () =>
    createSendThreads({
      config: app.config,
      key: deps.trackingKey(app),
      kinds: offThread,
      count: app.config.sendThreads,
      log: app.log,
    })
  const threads =
    app.config.sendThreads === 0 ? null : Object.keys(offThread).length > 0 ? create() : startedOnUse(create)
  const worker = createSendWorker(app, deps, { providers, threads }).start()
  return {
    ...worker,
    async stop() {
      await worker.stop()
      await Promise.all([closeProviders(providers), threads?.close()])
    },
  }
}

/** Send threads serving no instance channel, started by the first send through them. */
function startedOnUse(create: () => SendThreads): SendThreads {
  let threads: SendThreads | null = null
  return {
    serves: () => false,
    send: (...args) => {
      threads ??= create()
      return threads.send(...args)
    },
    drop: (target) => threads?.drop(target),
    kill: (index) => threads?.kill(index),
    alive: () => threads?.alive() ?? 0,
    inFlight: () => threads?.inFlight() ?? 0,
    close: async () => threads?.close(),
  }
}
