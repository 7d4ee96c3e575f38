// A list of handlers for one event, after PocketBase's tools/hook: code that makes something
// happen triggers the hook, code that reacts binds to it, and neither imports the other.
// Handlers run synchronously, in bind order, inside the trigger's caller: a handler's writes
// join the caller's transaction, and a throw propagates to the caller and rolls it back.

export type HookHandler<T> = (event: T) => void

export interface BindOptions<K> {
  /**
   * Whether this handler reacts to events about `key`. A trigger site asks `wants` before
   * gathering a costly payload (who joined a list), so nobody listening costs nothing.
   * Without it the handler wants every event.
   */
  wants?: (key: K) => boolean
}

export interface Hook<T, K = never> {
  /** Adds a handler after those already bound; its id unbinds it. */
  bind(handler: HookHandler<T>, options?: BindOptions<K>): string
  unbind(id: string): void
  /** Whether any handler reacts to events about `key`. */
  wants(key: K): boolean
  /** Runs every handler with `event`, in order; the first throw stops the rest and propagates. */
  trigger(event: T): void
  readonly length: number
}

interface Bound<T, K> {
  id: string
  handler: HookHandler<T>
  wants?: (key: K) => boolean
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
    wants: (key) => handlers.some((h) => h.wants === undefined || h.wants(key)),
    trigger(event) {
      // The list is replaced, never changed in place: a handler that binds or unbinds does
      // not change this run.
      for (const h of handlers) {
        const result: unknown = h.handler(event)
        // An awaited write would land after the caller's transaction ended.
        if (result instanceof Promise) throw new Error(`a ${name} handler must be synchronous`)
      }
    },
    get length() {
      return handlers.length
    },
  }
}
