import type { compile as CompileHtmlToText } from 'html-to-text'
import type Juice from 'juice'
import type { Liquid, Template } from 'liquidjs'
import type { TemplateChannel } from '../../lib/enums'
import { BOUNDS, OUTPUT_LIMITS, RenderBounds, type TemplateField, TemplateLimitError } from './bounds'
import { htmlEngine, MISSING, parseTemplate, textEngine } from './engine'

// The render path, called once per recipient on a render thread (render-pool.ts), never on the
// main thread. Everything that does not depend on the recipient — CSS inlining, Liquid parsing
// — happens once per template version and is cached (per thread); a render is then one Liquid
// pass per part (plus html-to-text when the template has no text body of its own).

// juice (with cheerio) and html-to-text are loaded on first use, not at start: a template
// without a <style> block never needs juice, one with a text body never needs html-to-text, and
// code that is loaded stays live in the JS heap, whose collection thresholds grow with what stays
// live (and so does a long send's peak RSS). require() loads synchronously; compile and render
// stay synchronous.
let juiceLoaded: typeof Juice | undefined
function juice(): typeof Juice {
  if (!juiceLoaded) {
    const j = (require('juice') as { default: typeof Juice }).default
    /** Liquid tags survive CSS inlining untouched (juice already protects `{{ … }}`). */
    j.codeBlocks.LIQUID_TAG = { start: '\\{%', end: '%\\}' }
    juiceLoaded = j
  }
  return juiceLoaded
}

let htmlToTextLoaded: ((html: string) => string) | undefined
function htmlToText(html: string): string {
  htmlToTextLoaded ??= (require('html-to-text').compile as typeof CompileHtmlToText)({
    wordwrap: 78,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  })
  return htmlToTextLoaded(html)
}

/**
 * What a template sees: contact.* (with contact.custom.*), client.*, campaign.*,
 * unsubscribe_url and preferences_url. Unknown members are allowed (and printable).
 */
export interface RenderVariables {
  contact: Record<string, unknown>
  client?: Record<string, unknown>
  campaign?: Record<string, unknown>
  unsubscribe_url?: string
  preferences_url?: string
  [name: string]: unknown
}

export interface RenderableTemplate {
  id: string
  updatedAt: number
  channel: TemplateChannel
  subject: string | null
  bodyHtml: string | null
  bodyText: string | null
}

export interface CompiledTemplate {
  channel: TemplateChannel
  subject: Template[] | null
  html: Template[] | null
  text: Template[] | null
}

export interface RenderedMessage {
  subject: string | null
  body_html: string | null
  body_text: string | null
}

/** Inlines <style> rules into style attributes; media queries stay in a <style> block. */
export function inlineCss(html: string): string {
  if (!/<style[\s>]/i.test(html) && !/<link[\s>]/i.test(html)) return html
  try {
    return juice()(html, { preserveMediaQueries: true, preserveFontFaces: true, applyWidthAttributes: true })
  } catch {
    return html // unparseable CSS: send the HTML as written rather than fail the message
  }
}

const cache = new Map<string, CompiledTemplate>()
const CACHE_MAX = 500

/** How many template versions the cache holds (tests check that drafts never enter it). */
export const compiledCacheSize = () => cache.size

/**
 * Parses (and inlines) content without the cache: for a draft that is not a stored version
 * (the portal's live preview), so unsaved text never enters or evicts the send path's cache.
 */
export function compileContent(t: Omit<RenderableTemplate, 'id' | 'updatedAt'>): CompiledTemplate {
  const email = t.channel === 'email'
  return {
    channel: t.channel,
    subject: email && t.subject ? parseTemplate(textEngine, t.subject) : null,
    html: email && t.bodyHtml ? parseTemplate(htmlEngine, inlineCss(t.bodyHtml)) : null,
    text: t.bodyText ? parseTemplate(textEngine, t.bodyText) : null,
  }
}

/** Parses (and inlines) a template version once; later calls for the same version are free. */
export function compileTemplate(t: RenderableTemplate): CompiledTemplate {
  const key = `${t.id}:${t.updatedAt}`
  const hit = cache.get(key)
  if (hit) return hit
  const compiled = compileContent(t)
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(key, compiled)
  return compiled
}

/** How long a render may take (the render pool ends a thread that runs past it). */
export const PREVIEW_BUDGET_MS = 100
export const SEND_BUDGET_MS = 1_000

/** Liquid's own limits, as the member and message an author can act on. */
function limitError(err: unknown, bounds: RenderBounds, budgetMs: number): unknown {
  if (bounds.exceeded) return bounds.exceeded
  const message = (err as Error | undefined)?.message ?? ''
  if (message.includes('template render limit exceeded'))
    return new TemplateLimitError(bounds.field, tookTooLong(budgetMs))
  if (message.includes('memory alloc limit exceeded'))
    return new TemplateLimitError(
      bounds.field,
      'the template builds too much text (a loop or filter too large?)',
    )
  return err
}

export const tookTooLong = (budgetMs: number) =>
  `the template took longer than ${budgetMs.toLocaleString('en')} ms to render (a loop too large?)`

/**
 * Renders a compiled template for one recipient within `budgetMs` (Liquid checks it between
 * nodes; the render pool's threads are ended past it). Missing variables print as empty; pass
 * `missing` to collect the paths of those printed without a `default`. A render past its
 * bounds throws a TemplateLimitError naming the member.
 */
export function renderCompiled(
  c: CompiledTemplate,
  variables: RenderVariables,
  missing?: Set<string>,
  budgetMs = SEND_BUDGET_MS,
  onPart?: (field: TemplateField) => void,
): RenderedMessage {
  const bounds = new RenderBounds()
  const globals = missing ? { [MISSING]: missing, [BOUNDS]: bounds } : { [BOUNDS]: bounds }
  const deadline = performance.now() + budgetMs
  const part = (field: TemplateField, engine: Liquid, templates: Template[]): string => {
    bounds.startPart(field)
    onPart?.(field)
    let out: string
    try {
      const renderLimit = Math.max(1, deadline - performance.now())
      out = String(engine.renderSync(templates, variables, { globals, renderLimit }))
    } catch (err) {
      throw limitError(err, bounds, budgetMs)
    }
    if (out.length > OUTPUT_LIMITS[field]) bounds.tooLarge()
    return out
  }
  // A subject is one header line: line breaks from data must not start new headers.
  const subject = c.subject
    ? part('subject', textEngine, c.subject)
        .replace(/\s*[\r\n]+\s*/g, ' ')
        .trim()
    : null
  const html = c.html ? part('body_html', htmlEngine, c.html) : null
  let text = c.text ? part('body_text', textEngine, c.text) : null
  if (text === null && html !== null) {
    bounds.startPart('body_text')
    onPart?.('body_text')
    text = htmlToText(html)
  }
  return { subject, body_html: html, body_text: text }
}

export const renderTemplate = (t: RenderableTemplate, variables: RenderVariables, missing?: Set<string>) =>
  renderCompiled(compileTemplate(t), variables, missing)
