// Renders run on the render threads, so a send that waited for its own render in its send turn
// would spend that turn on a round trip. Messages are instead rendered ahead of their turns, in
// the order they were queued, with at most `window` renders started and not yet taken by their
// send: the threads stay busy while earlier messages are being sent, and memory holds a window of
// rendered messages, never a whole batch.

export interface RenderAhead {
  /** Queues a render; the function it returns waits for the result (starting it then if it has not started). */
  add<T>(start: () => Promise<T>): () => Promise<T>
}

export function createRenderAhead(window: number): RenderAhead {
  const waiting: (() => void)[] = []
  let open = 0
  const pump = () => {
    while (open < window && waiting.length > 0) {
      open++
      waiting.shift()!()
    }
  }
  return {
    add<T>(start: () => Promise<T>) {
      let result: Promise<T> | null = null
      const begin = () => {
        result = start()
        result.catch(() => {}) // a send that never runs leaves it unawaited, not unhandled
      }
      waiting.push(begin)
      pump()
      return async () => {
        if (!result) {
          waiting.splice(waiting.indexOf(begin), 1)
          open++
          begin()
        }
        try {
          return await result!
        } finally {
          open--
          pump()
        }
      }
    },
  }
}
