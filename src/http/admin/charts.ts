// A small server-rendered SVG line chart (dashboard, campaign pages): the handler turns series
// of numbers into coordinates, views/partials/line-chart.liquid draws them with a <title>, a
// <desc>, a legend and a table of the same numbers as the text alternative. Series are told
// apart by colour *and* dash pattern (not by colour alone); no script, no inline style (CSP).

export interface Series {
  name: string
  values: readonly number[]
}

export interface LineChart {
  width: number
  height: number
  /** Left margin for the y-axis labels. */
  left: number
  bottom: number
  max: number
  series: { name: string; points: string; color: string; dash: string; total: number }[]
  yTicks: { y: number; label: string }[]
  xTicks: { x: number; label: string; anchor: 'start' | 'middle' | 'end' }[]
  /** The table fallback: one row per label, one cell per series. */
  rows: { label: string; values: number[] }[]
}

// Colours readable on Pico's light and dark backgrounds; dashes differ too.
const STYLES = [
  { color: '#1f77b4', dash: '' },
  { color: '#2ca02c', dash: '6 3' },
  { color: '#d62728', dash: '2 3' },
  { color: '#9467bd', dash: '8 3 2 3' },
  { color: '#8c564b', dash: '4 4' },
]

const round = (n: number) => Math.round(n * 10) / 10
const fmt = (n: number) => n.toLocaleString('en-US')

/** The scale's top: 1, 2 or 5 times a power of ten, at least `n`. */
function niceCeil(n: number): number {
  const p = 10 ** Math.floor(Math.log10(n))
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p
  return 10 * p
}

/** `labels[i]` names the i-th value of every series (a day, an hour). */
export function lineChart(
  labels: readonly string[],
  series: readonly Series[],
  width = 720,
  height = 220,
): LineChart {
  const left = 48
  const bottom = 24
  const plotW = width - left - 8
  const plotH = height - bottom - 8
  const max = niceCeil(Math.max(1, ...series.flatMap((s) => s.values)))
  const n = labels.length
  const xAt = (i: number) => round(left + (n <= 1 ? plotW / 2 : (i / (n - 1)) * plotW))
  const yAt = (v: number) => round(8 + plotH - (v / max) * plotH)
  const out = series.map((s, k) => ({
    name: s.name,
    points: s.values.map((v, i) => `${xAt(i)},${yAt(v)}`).join(' '),
    ...STYLES[k % STYLES.length]!,
    total: s.values.reduce((a, b) => a + b, 0),
  }))
  // Whole numbers only: the middle line when the scale halves evenly.
  const yTicks = (max % 2 === 0 ? [0, max / 2, max] : [0, max]).map((v) => ({ y: yAt(v), label: fmt(v) }))
  // The first label starts at its point, the last ends at it (never cut by the edge).
  const anchor = (i: number) => (n > 1 && i === 0 ? 'start' : n > 1 && i === n - 1 ? 'end' : 'middle')
  const xTicks =
    n === 0
      ? []
      : [...new Set([0, Math.floor((n - 1) / 2), n - 1])].map((i) => ({
          x: xAt(i),
          label: labels[i]!,
          anchor: anchor(i) as 'start' | 'middle' | 'end',
        }))
  const rows = labels.map((label, i) => ({ label, values: series.map((s) => s.values[i] ?? 0) }))
  return { width, height, left, bottom, max, series: out, yTicks, xTicks, rows }
}

/** Horizontal bars of counts (a campaign's stats), scaled to the largest. */
export function countBars(items: readonly { name: string; value: number }[], width = 720) {
  const max = Math.max(1, ...items.map((i) => i.value))
  return {
    width,
    height: items.length * 28,
    bars: items.map((it, i) => ({
      name: it.name,
      value: it.value,
      y: i * 28,
      width: Math.max(1, Math.round((it.value / max) * (width - 220))),
      label: `${it.name}: ${fmt(it.value)}`,
    })),
  }
}
