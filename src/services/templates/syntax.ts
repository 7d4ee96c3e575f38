import type { Liquid, LiquidError, Template } from 'liquidjs'
import { type FieldError, validationFailed } from '../../errors'
import { parseTemplate } from './engine'

export interface LiquidFieldError extends FieldError {
  line: number
  column: number
}

/** Parses `source`, or describes the first syntax error with its line and column. */
export function parseOrError(
  engine: Liquid,
  field: string,
  source: string,
): { ok: true; templates: Template[] } | { ok: false; error: LiquidFieldError } {
  try {
    return { ok: true, templates: parseTemplate(engine, source) }
  } catch (err) {
    const liquid = err as Partial<LiquidError>
    const [line = 1, column = 1] = liquid.token?.getPosition?.() ?? []
    const reason = String(liquid.originalError?.message ?? liquid.message ?? err).replace(
      /, line:\d+, col:\d+$/,
      '',
    )
    return {
      ok: false,
      error: {
        field,
        line,
        column,
        message: `Liquid syntax error at line ${line}, column ${column}: ${reason}`,
      },
    }
  }
}

/** 422 VALIDATION_FAILED listing every field that does not parse, each with line and column. */
export function assertParses(fields: { engine: Liquid; field: string; source: string | null | undefined }[]) {
  const errors: LiquidFieldError[] = []
  for (const f of fields) {
    if (f.source == null) continue
    const parsed = parseOrError(f.engine, f.field, f.source)
    if (!parsed.ok) errors.push(parsed.error)
  }
  if (errors.length > 0) throw validationFailed(errors)
}
