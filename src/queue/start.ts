import { closeProviders, createProviders } from '../channels/registry'
import type { AppContext } from '../context'
import { createFeedback } from './feedback'
import { type SendWorker, startSendWorker } from './worker'

/** The instance's sending: providers from the configuration, their feedback, and the worker. */
export function startSending(app: AppContext): SendWorker {
  const providers = createProviders(app.config, createFeedback(app))
  const worker = startSendWorker(app, { providers })
  return {
    kick: worker.kick,
    async stop() {
      await worker.stop()
      await closeProviders(providers)
    },
  }
}
