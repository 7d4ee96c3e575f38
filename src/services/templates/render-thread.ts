import { LiquidError } from 'liquidjs'
import { createHeapNudge } from '../../lib/heap-nudge'
import { type TemplateField, TemplateLimitError } from './bounds'
import { compileContent, compileTemplate, type RenderableTemplate, renderCompiled } from './render'
import {
  FIELDS,
  type FromRenderThread,
  KNOWN_VERSIONS,
  PHASE_COMPILING,
  PHASE_IDLE,
  type RenderAnswer,
  type RenderContent,
  type RenderJob,
  type ToRenderThread,
} from './render-protocol'

// A render thread (render-pool.ts starts them; an entry point of the build, see scripts/build.ts):
// compiles (cached per template version) and renders what it is given, one job at a time, and
// says in shared memory what it is doing, so that the pool, when it ends a thread that ran past
// the budget, can name the member that was rendering.

declare const self: Worker

let state: Float64Array | null = null

function setPhase(phase: number, job = 0) {
  if (!state) return
  if (job) state[3] = job
  state[0] = phase
  if (phase === PHASE_COMPILING) state[1] = Date.now()
  else if (phase >= 0 && state[2] === 0) state[2] = Date.now()
  else if (phase === PHASE_IDLE) state[2] = 0
}

/** A stored version is compiled once per thread; a draft (no version) every time, uncached. */
function compile(c: RenderContent) {
  return c.id !== undefined && c.updatedAt !== undefined
    ? compileTemplate(c as RenderableTemplate)
    : compileContent(c)
}

/** The contents of the versions this thread was sent (see RenderJob). */
const versions = new Map<string, RenderContent>()

function contentOf(m: RenderJob): RenderContent {
  if (m.version === undefined) return m.content!
  if (m.content) {
    if (versions.size >= KNOWN_VERSIONS) versions.clear()
    versions.set(m.version, m.content)
    return m.content
  }
  const known = versions.get(m.version)
  if (!known) throw new Error(`the render thread was not sent template version ${m.version}`)
  return known
}

const liquidMessage = (err: LiquidError) =>
  `The template failed to render: ${err.message.replace(/, line:(\d+), col:(\d+)$/, ' (line $1, column $2)')}`

function run(m: RenderJob): RenderAnswer {
  let field: TemplateField | null = null
  try {
    setPhase(PHASE_COMPILING, m.job)
    const compiled = compile(contentOf(m))
    const missing = m.missing ? new Set<string>() : undefined
    const rendered = renderCompiled(compiled, m.variables as never, missing, m.budgetMs, (f) => {
      field = f
      setPhase(FIELDS.indexOf(f))
    })
    return { job: m.job, ok: true, rendered, missing: missing ? [...missing] : [] }
  } catch (err) {
    if (err instanceof TemplateLimitError)
      return { job: m.job, ok: false, field: err.field, message: err.message, limit: true }
    const message = err instanceof LiquidError ? liquidMessage(err) : String((err as Error)?.message ?? err)
    return { job: m.job, ok: false, field, message, limit: false }
  } finally {
    setPhase(PHASE_IDLE)
  }
}

// Loads what a first render would load (Liquid, text derived from HTML), so that a new thread's
// first job renders within its budget. CSS inlining loads while compiling, which has an allowance.
function warm() {
  const compiled = compileContent({
    channel: 'email',
    subject: 'Hi {{ contact.first_name }}',
    bodyHtml: '<p>{% for i in (1..3) %}{{ i }}{% endfor %}</p>',
    bodyText: null,
  })
  renderCompiled(compiled, { contact: { first_name: 'A' } })
}

// Sends render thousands of messages a second here; like the send loop, the thread collects its
// garbage in full once the heap has grown past a budget, so its memory stays near what is live.
const nudgeHeap = createHeapNudge({ budget: 4 * 1024 * 1024 })

self.onmessage = (event: MessageEvent<string | ToRenderThread>) => {
  const m = typeof event.data === 'string' ? (JSON.parse(event.data) as ToRenderThread) : event.data
  if (m.type === 'init') {
    state = new Float64Array(m.state)
    warm()
    self.postMessage({ type: 'ready' } satisfies FromRenderThread)
    return
  }
  // Answers of a batch go back together, and at least every 2 ms: one slow job does not hold
  // the answers of the jobs before it.
  let answers: RenderAnswer[] = []
  let since = performance.now()
  const flush = () => {
    self.postMessage(JSON.stringify({ type: 'answers', answers } satisfies FromRenderThread))
    answers = []
    since = performance.now()
  }
  for (const job of m.jobs) {
    answers.push(run(job))
    if (performance.now() - since > 2) flush()
  }
  if (answers.length > 0) flush()
  nudgeHeap()
}
