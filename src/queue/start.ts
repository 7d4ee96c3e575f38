import { closeProviders, createProviders } from '../channels/registry'
import type { AppContext } from '../context'
import { createFeedback } from './feedback'
import type { LeasedWorker } from './leased-worker'
import { createSendWorker } from './worker'

/** The instance's sending: providers from the configuration, their feedback, and the worker. */
export function startSending(app: AppContext): LeasedWorker {
  const providers = createProviders(app.config, createFeedback(app))
  const worker = createSendWorker(app, { providers }).start()
  return {
    ...worker,
    async stop() {
      await worker.stop()
      await closeProviders(providers)
    },
  }
}
