import { type AppContext, appOf } from '../context'

// Verbs wake the send worker after a launch or resume without importing the worker itself.
const kickers = new WeakMap<AppContext, () => void>()

export function registerSenderKick(app: AppContext, kick: () => void): void {
  kickers.set(appOf(app), kick)
}

export function unregisterSenderKick(app: AppContext): void {
  kickers.delete(appOf(app))
}

/** Wakes the running send worker, if any. */
export function kickSender(ctx: AppContext): void {
  kickers.get(appOf(ctx))?.()
}
