// The portal's chart geometry and the email viewer's quieting of HTML (unit tests).
import { describe, expect, test } from 'bun:test'
import { countBars, lineChart } from '../../../src/http/admin/charts'
import { inertHtml } from '../../../src/http/admin/inert-html'

describe('lineChart', () => {
  test('scales to a round top, keeps every value in the table, anchors the end labels inside', () => {
    const c = lineChart(
      ['d1', 'd2', 'd3'],
      [
        { name: 'Sends', values: [0, 7, 3] },
        { name: 'Opens', values: [0, 2, 1] },
      ],
    )
    expect(c.max).toBe(10)
    expect(c.yTicks.map((t) => t.label)).toEqual(['0', '5', '10'])
    expect(c.series.map((s) => s.total)).toEqual([10, 3])
    expect(c.series[0]!.dash).not.toBe(c.series[1]!.dash) // not told apart by colour alone
    expect(c.rows).toEqual([
      { label: 'd1', values: [0, 0] },
      { label: 'd2', values: [7, 2] },
      { label: 'd3', values: [3, 1] },
    ])
    expect(c.xTicks.map((t) => t.anchor)).toEqual(['start', 'middle', 'end'])
    // The highest point touches the top of the plot, zero the bottom.
    const ys = c.series[0]!.points.split(' ').map((p) => Number(p.split(',')[1]))
    expect(ys[0]).toBeGreaterThan(ys[1]!)
  })

  test('all zero: a scale of 1 with whole-number ticks only', () => {
    const c = lineChart(['a'], [{ name: 'Sends', values: [0] }])
    expect(c.max).toBe(1)
    expect(c.yTicks.map((t) => t.label)).toEqual(['0', '1'])
  })

  test('countBars: widths relative to the largest', () => {
    const b = countBars([
      { name: 'Sent', value: 100 },
      { name: 'Opened', value: 25 },
    ])
    expect(b.bars[1]!.width * 4).toBe(b.bars[0]!.width)
    expect(b.bars[0]!.label).toBe('Sent: 100')
  })
})

describe('inertHtml', () => {
  test('drops scripts, styles, handlers, remote and relative images and script URLs; keeps the text and markup', () => {
    const out = inertHtml(
      '<style>p{}</style><p onclick="x()" style="color:red">Hi <b>Ann</b></p><img src=x onerror="alert(1)">' +
        '<img src="data:image/png;base64,AA"><script>window.__xss=1</script><a href="javascript:alert(1)">a</a>' +
        '<a href="https://example.com/">b</a><iframe src="https://evil.test"></iframe>',
    )
    expect(out).toBe(
      '<p>Hi <b>Ann</b></p><img><img src="data:image/png;base64,AA"><a>a</a><a href="https://example.com/">b</a>',
    )
  })
})
