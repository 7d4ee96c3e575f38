import type { TemplateField } from './bounds'
import type { RenderableTemplate, RenderedMessage } from './render'

// The messages between the render pool (render-pool.ts, main thread) and a render thread
// (render-thread.ts). Jobs and answers travel as JSON text (template variables are JSON data):
// a string crosses threads several times cheaper than the structured clone of the same objects,
// and the main thread pays that cost for every message sent.

/** A stored version (id and updatedAt: compiled once per thread) or a draft (compiled per render). */
export type RenderContent = Omit<RenderableTemplate, 'id' | 'updatedAt'> & { id?: string; updatedAt?: number }

export interface RenderRequest {
  content: RenderContent
  variables: Record<string, unknown>
  /** Collect the variables that printed empty (previews). */
  missing?: boolean
  budgetMs: number
}

export type RenderAnswer =
  | { job: number; ok: true; rendered: RenderedMessage; missing: string[] }
  /** `limit`: a bound (time, loop iterations, output size) was crossed; `field` is the member rendering. */
  | { job: number; ok: false; field: TemplateField | null; message: string; limit: boolean }

export type ToRenderThread =
  /**
   * The thread's state (a Float64Array over it): [phase, compiling since, rendering since, job]
   * (times from Date.now()).
   */
  | { type: 'init'; state: SharedArrayBuffer }
  /** Jobs queued in one turn of the main thread, posted together and run in order. */
  | { type: 'render'; jobs: RenderJob[] }

/**
 * A job on the wire. A stored version's content goes to a thread once: later jobs name its
 * `version` alone. Pool and thread each remember at most KNOWN_VERSIONS versions per thread and
 * forget them all at once when a new one would pass that, in the same order of jobs, so both
 * always agree on what the thread holds.
 */
export type RenderJob = { job: number; version?: string; content?: RenderContent } & Omit<
  RenderRequest,
  'content'
>

export const KNOWN_VERSIONS = 200

/** Answers go back a few milliseconds' worth at a time. */
export type FromRenderThread = { type: 'ready' } | { type: 'answers'; answers: RenderAnswer[] }

/** Phases of the shared state: a field's index while rendering it. */
export const FIELDS: readonly TemplateField[] = ['subject', 'body_html', 'body_text']
export const PHASE_IDLE = -1
export const PHASE_COMPILING = -2
