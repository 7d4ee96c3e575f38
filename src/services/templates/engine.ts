import { type Context, Liquid, type Output, Parser, type Template, TypeGuards, toValueSync } from 'liquidjs'
import { boundEngine } from './bounds'

// Two Liquid engines: HTML bodies escape what variables print (`| raw` opts out), subjects and
// text bodies do not. Both refuse unknown filters at parse time, have no file system (include,
// render and layout are removed) and bound the time, memory, blocks and output of a render.

/** Set in render globals to collect the paths of printed variables that were absent or null. */
export const MISSING = Symbol('missing variables')

/**
 * Parses with a parser of its own (as Liquid#parse does, so parseLimit counts per template)
 * whose outputs, nested ones included (tags parse their bodies with the same parser), are watched.
 */
export function parseTemplate(engine: Liquid, source: string): Template[] {
  const parser = new Parser(engine)
  const parseToken = parser.parseToken.bind(parser)
  parser.parseToken = (token, remaining) => {
    const template = parseToken(token, remaining)
    if (TypeGuards.isOutputToken(token)) watch(template as Output)
    return template
  }
  return parser.parse(source)
}

/**
 * `{{ contact.custom.plan }}` with no `default` filter: when a render collects missing
 * variables, note the path as written if it resolves to nothing. Outputs inside branches that
 * do not render are never evaluated, so a guarded `{% if %}` does not report.
 */
function watch(output: Output) {
  const { initial, filters } = output.value
  const token = initial.postfix[0]
  if (initial.postfix.length !== 1 || !TypeGuards.isPropertyAccessToken(token)) return
  if (filters.some((f) => f.name === 'default')) return
  const path = token.getText().trim()
  const render = output.render.bind(output)
  output.render = function* (ctx: Context, emitter) {
    const missing = (ctx.globals as { [MISSING]?: Set<string> } | undefined)?.[MISSING]
    if (missing) {
      const value = toValueSync(initial.evaluate(ctx, true))
      if (value === undefined || value === null) missing.add(path)
    }
    return yield* render(ctx, emitter)
  }
}

function createEngine(escapeHtml: boolean): Liquid {
  const engine = new Liquid({
    outputEscape: escapeHtml ? 'escape' : undefined,
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    cache: false,
    parseLimit: 2_000_000,
    renderLimit: 2_000,
    memoryLimit: 16_000_000,
  })
  for (const tag of ['include', 'render', 'layout', 'block']) delete engine.tags[tag]
  boundEngine(engine)
  return engine
}

export const htmlEngine = createEngine(true)
export const textEngine = createEngine(false)
