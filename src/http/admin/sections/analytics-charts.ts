// Server-rendered SVG charts for the analytics pages: the handler turns numbers
// into coordinates, the view draws rectangles. No script, no inline style (the CSP): bars take
// `currentColor`, and every chart has a text alternative (a table, and a <title> per bar).

export interface Bar {
  x: number
  y: number
  width: number
  height: number
  label: string
}

export interface BarChart {
  width: number
  height: number
  bars: Bar[]
  max: number
  /** Labels under the first, middle and last bar. */
  ticks: { x: number; label: string }[]
}

const W = 720
const H = 200

/** Vertical bars of `points` (a trend), scaled to the largest value. */
export function barChart(points: { label: string; value: number }[], width = W, height = H): BarChart {
  const max = Math.max(1, ...points.map((p) => p.value))
  const step = points.length > 0 ? width / points.length : width
  const gap = step > 4 ? 1 : 0
  const bars = points.map((p, i) => {
    const h = Math.round((p.value / max) * (height - 4) * 10) / 10
    return {
      x: Math.round(i * step * 10) / 10,
      y: Math.round((height - h) * 10) / 10,
      width: Math.max(0.5, Math.round((step - gap) * 10) / 10),
      height: h,
      label: `${p.label}: ${p.value.toLocaleString('en-US')}`,
    }
  })
  const at = (i: number) => ({ x: Math.round((i + 0.5) * step), label: points[i]?.label ?? '' })
  const ticks =
    points.length === 0 ? [] : [...new Set([0, Math.floor(points.length / 2), points.length - 1])].map(at)
  return { width, height, bars, max, ticks }
}

/** Horizontal bars of the funnel's steps, as shares of the first. */
export function funnelBars(steps: { name: string; count: number }[], width = W) {
  const first = Math.max(1, steps[0]?.count ?? 0)
  return steps.map((s, i) => ({
    y: i * 28,
    width: Math.max(1, Math.round((s.count / first) * (width - 200))),
    label: `${s.name}: ${s.count.toLocaleString('en-US')}`,
  }))
}
