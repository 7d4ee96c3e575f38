import type { Context, Liquid, Template } from 'liquidjs'

// What one render may do besides take time (the render pool enforces the time budget): how many
// blocks it may render (every loop iteration renders its body once, so nested loops over large
// ranges count up fast) and how much text it may write, captures included, so a template can
// neither loop for ever nor build a body the size of the heap.

/** The rendered parts, named as the template members they come from. */
export type TemplateField = 'subject' | 'body_html' | 'body_text'

/** The largest rendered part: the size the stored member may have. */
export const OUTPUT_LIMITS: Record<TemplateField, number> = {
  subject: 998,
  body_html: 512 * 1024,
  body_text: 128 * 1024,
}

/** Blocks (loop bodies, branches, captures) one render of all parts may render. */
export const MAX_BLOCKS = 100_000

/** Text written while rendering one part (captures and loops included), as a multiple of its limit. */
const WRITE_FACTOR = 8

/** Why a render was refused: the member it was rendering and a message for the author. */
export class TemplateLimitError extends Error {
  constructor(
    readonly field: TemplateField,
    message: string,
  ) {
    super(message)
  }
}

/** The counters of one render, shared by its parts (blocks) or per part (text written). */
export class RenderBounds {
  blocks = 0
  written = 0
  field: TemplateField = 'subject'
  /** Set when a bound was crossed: Liquid wraps what the renderer throws, this survives it. */
  exceeded: TemplateLimitError | null = null

  startPart(field: TemplateField) {
    this.field = field
    this.written = 0
  }

  block() {
    if (++this.blocks > MAX_BLOCKS)
      this.fail(
        `the template renders more than ${MAX_BLOCKS.toLocaleString('en')} loop iterations or blocks (a loop too large?)`,
      )
  }

  write(length: number) {
    this.written += length
    if (this.written > OUTPUT_LIMITS[this.field] * WRITE_FACTOR) this.tooLarge()
  }

  tooLarge(): never {
    return this.fail(`the rendered ${this.field} is larger than ${sizeText(OUTPUT_LIMITS[this.field])}`)
  }

  fail(message: string): never {
    this.exceeded = new TemplateLimitError(this.field, message)
    throw this.exceeded
  }
}

const sizeText = (n: number) => (n >= 1024 ? `${n / 1024} KiB` : `${n} characters`)

/** Where a render keeps its bounds: in the render's globals, which every nested scope shares. */
export const BOUNDS = Symbol('render bounds')

type Emitter = { buffer: unknown; write(html: unknown): void }

/** An emitter like Liquid's own that counts what is written against the render's bounds. */
function countingEmitter(bounds: RenderBounds): Emitter {
  return {
    buffer: '',
    write(html: unknown) {
      const text = html == null ? '' : typeof html === 'string' ? html : String(html)
      bounds.write(text.length)
      this.buffer += text
    },
  }
}

/**
 * Makes every block the engine renders count against the render's bounds (when it has any):
 * loop bodies, branches and captures all go through `renderTemplates`, and a block without an
 * emitter of its own (the whole part, a capture) gets one that counts what it writes.
 */
export function boundEngine(engine: Liquid) {
  const renderer = engine.renderer
  const renderTemplates = renderer.renderTemplates.bind(renderer)
  // Counts when a block is about to render and hands back Liquid's own generator (no generator
  // of its own per block: this is the hot path of every render).
  renderer.renderTemplates = ((templates: Template[], ctx: Context, emitter?: Emitter) => {
    const bounds = (ctx.globals as { [BOUNDS]?: RenderBounds } | undefined)?.[BOUNDS]
    if (bounds) {
      bounds.block()
      emitter ??= countingEmitter(bounds)
    }
    return renderTemplates(templates, ctx, emitter as never)
  }) as typeof renderer.renderTemplates
}
