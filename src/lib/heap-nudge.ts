import { fullGC, heapSize } from 'bun:jsc'

// Peak memory of a long send (the aim: ≤ 250 MB RSS while 200,000 journey messages go out).
// Measured on `herald serve` (test/bench/journeys.ts, /proc/<pid>/smaps): ~50 MB is the mapped
// executable, ~45 MB other memory, and the rest is the JS heap in mimalloc's arena, whose height
// is set by JavaScriptCore's collection policy rather than by what stays live (~25 MB, mostly
// code). Each eden collection promotes whatever is in flight (claimed batches, composed
// messages) and it then dies in the old generation; JSC's concurrent full collection starts only
// once that garbage is about as large as the heap it found live last time, and everything
// allocated while it marks counts as live. The heap swung between ~25 and ~115 MB (capacity up
// to ~160 MB) and RSS peaked at 278-298 MB. A full collection gives it back within half a second
// (216 -> 137 MB RSS after a 30,000-message campaign).
//
// The nudge runs a synchronous full collection (bun:jsc fullGC: nothing is allocated while it
// marks, so only what is really live stays) once the heap as measured after the last collection
// has grown `budget` bytes past its lowest point. It runs from a 0 ms timer, after the event
// loop has taken the requests that arrived meanwhile (a setImmediate callback ran before them:
// measured with Bun.serve and a request waiting in the socket), so they are answered first. Measured on a 60,000-message campaign
// (load 2-4): peak RSS 260-267 MB without, 218 MB with a 32 MB budget (6 collections of
// 16-40 ms), and the campaign took no longer (8.98 s vs 9.31-10.08 s; CPU 9.93 s vs 10.0 s). The
// asynchronous Bun.gc(false) was tried first: ~0.5 ms to call, but the peak did not move
// (270-286 MB), since its concurrent marking keeps what is allocated meanwhile.

export interface HeapNudgeOptions {
  /** Growth of the post-collection heap, in bytes, that starts a full collection. */
  budget: number
  /** The heap's size after the last collection (bun:jsc heapSize: what JSC recorded then, cheap). */
  read?: () => number
  /** Runs a full collection (default: bun:jsc fullGC from a 0 ms timer, after pending I/O). */
  collect?: () => void
}

/** Returns a check to call between units of work; true when it asked for a collection. */
export function createHeapNudge({
  budget,
  read = heapSize,
  collect = () => setTimeout(fullGC, 0),
}: HeapNudgeOptions): () => boolean {
  let floor = Number.POSITIVE_INFINITY
  return function check() {
    const size = read()
    if (size < floor) floor = size
    if (size - floor <= budget) return false
    collect()
    // The collection lowers the size once it has run; until then growth counts from here, so
    // checks in between do not ask again.
    floor = size
    return true
  }
}
