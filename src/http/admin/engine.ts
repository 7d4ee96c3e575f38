import { Liquid } from 'liquidjs'
import { embeddedViews } from './views.generated'

// The template engine: liquidjs over the templates embedded in the binary (views.generated.ts),
// every `{{ value }}` HTML-escaped unless a template writes `| raw` (only for HTML we rendered
// ourselves). Strict variables are off so an absent optional value renders empty.

const DATE_FORMATS = new Map<string, Intl.DateTimeFormat>()
function dateFormat(timeZone: string): Intl.DateTimeFormat {
  let f = DATE_FORMATS.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    })
    DATE_FORMATS.set(timeZone, f)
  }
  return f
}
const NUMBER = new Intl.NumberFormat('en-US')

export function createEngine(): Liquid {
  const liquid = new Liquid({
    templates: embeddedViews,
    extname: '.liquid',
    outputEscape: 'escape',
    strictFilters: true,
    cache: true,
  })
  /** `{{ created_at | local_time }}`: an ISO time (or epoch ms) in the signed-in user's time zone. */
  liquid.registerFilter('local_time', function (value: unknown) {
    if (value === null || value === undefined || value === '') return ''
    const ms = typeof value === 'number' ? value : Date.parse(String(value))
    if (Number.isNaN(ms)) return String(value)
    const tz = (this.context.getSync(['timezone']) as string | undefined) ?? 'UTC'
    try {
      return dateFormat(tz).format(ms)
    } catch {
      return dateFormat('UTC').format(ms)
    }
  })
  /** `{{ n | number }}`: 1234567 → 1,234,567. */
  liquid.registerFilter('number', (value: unknown) => {
    const n = Number(value)
    return value === null || value === undefined || Number.isNaN(n) ? '' : NUMBER.format(n)
  })
  /** `{{ list | join_comma }}` for arrays of strings. */
  liquid.registerFilter('join_comma', (value: unknown) => (Array.isArray(value) ? value.join(', ') : ''))
  return liquid
}
