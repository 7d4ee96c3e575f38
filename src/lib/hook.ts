// A list of handlers for one event, after PocketBase's tools/hook: code that makes something
// happen triggers the hook, code that reacts binds to it, and neither imports the other.
// Handlers run one after another, in bind order, inside the trigger's caller: a handler's
// writes join the caller's transaction (it awaits the store only), and a throw propagates to
// the caller and rolls it back.

export type HookHandler<T> = (event: T) => void | Promise<void>

export interface BindOptions<K> {
  /**
   * Whether this handler reacts to events about `key`. A trigger site asks `wants` before
   * gathering a costly payload (who joined a list), so nobody listening costs nothing.
   * Without it the handler wants every event.
   */
  wants?: (key: K) => boolean | Promise<boolean>
}

export interface Hook<T, K = never> {
  /** Adds a handler after those already bound; its id unbinds it. */
  bind(handler: HookHandler<T>, options?: BindOptions<K>): string
  unbind(id: string): void
  /** Whether any handler reacts to events about `key`. */
  wants(key: K): Promise<boolean>
  /** Runs every handler with `event`, in order; the first throw stops the rest and propagates. */
  trigger(event: T): Promise<void>
  readonly length: number
}

interface Bound<T, K> {
  id: string
  handler: HookHandler<T>
  wants?: (key: K) => boolean | Promise<boolean>
}

export function createHook<T, K = never>(name: string): Hook<T, K> {
  let handlers: Bound<T, K>[] = []
  let next = 0
  return {
    bind(handler, options = {}) {
      const id = `${name}#${++next}`
      handlers = [...handlers, { id, handler, wants: options.wants }]
      return id
    },
    unbind(id) {
      handlers = handlers.filter((h) => h.id !== id)
    },
    async wants(key) {
      for (const h of handlers) if (h.wants === undefined || (await h.wants(key))) return true
      return false
    },
    async trigger(event) {
      // The list is replaced, never changed in place: a handler that binds or unbinds does
      // not change this run.
      for (const h of handlers) await h.handler(event)
    },
    get length() {
      return handlers.length
    },
  }
}
