// A journey's graph drawn as a top-down flow in server-rendered SVG: nodes in rows by their
// distance from the trigger, edges as lines labelled with the branch they are (yes/no, event/
// timeout, a split's branch), each node with how many passed it and how many wait at it, and
// the nodes a save or activation refused outlined. Every text is escaped here: the view
// includes the markup as it is.

export interface GraphNode {
  id: string
  type: string
  label?: string
  passed: number
  waiting: number
  edges: { to: string; label: string }[]
  error: boolean
}

const W = 170
const H = 58
const GAP_X = 28
const GAP_Y = 64
const PAD = 16

const esc = (s: string) =>
  s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** The nodes' edges with their labels, from the stored graph. */
export function edgesOf(node: Record<string, unknown>): { to: string; label: string }[] {
  const out: { to: string; label: string }[] = []
  const add = (member: string, label: string) => {
    if (typeof node[member] === 'string') out.push({ to: node[member] as string, label })
  }
  add('next', '')
  add('yes', 'yes')
  add('no', 'no')
  add('on_event', 'event')
  add('on_timeout', 'timeout')
  if (Array.isArray(node.branches))
    node.branches.forEach((b, i) => {
      const br = b as { next?: unknown; name?: unknown; weight?: unknown }
      if (typeof br?.next === 'string')
        out.push({
          to: br.next,
          label: typeof br.name === 'string' ? br.name : `branch ${i + 1} (${String(br.weight)})`,
        })
    })
  return out
}

/** Rows by breadth-first distance from the trigger; unreachable nodes in a last row. */
function layout(nodes: GraphNode[]): Map<string, { x: number; y: number }> {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const depth = new Map<string, number>()
  const start = nodes.find((n) => n.type === 'trigger') ?? nodes[0]
  if (start) {
    depth.set(start.id, 0)
    const queue = [start.id]
    while (queue.length) {
      const id = queue.shift()!
      for (const e of byId.get(id)?.edges ?? [])
        if (byId.has(e.to) && !depth.has(e.to)) {
          depth.set(e.to, depth.get(id)! + 1)
          queue.push(e.to)
        }
    }
  }
  const last = Math.max(-1, ...depth.values()) + 1
  for (const n of nodes) if (!depth.has(n.id)) depth.set(n.id, last)
  const rows = new Map<number, string[]>()
  for (const n of nodes) rows.set(depth.get(n.id)!, [...(rows.get(depth.get(n.id)!) ?? []), n.id])
  const widest = Math.max(1, ...[...rows.values()].map((r) => r.length))
  const pos = new Map<string, { x: number; y: number }>()
  for (const [d, ids] of rows) {
    const offset = ((widest - ids.length) * (W + GAP_X)) / 2
    for (const [i, id] of ids.entries())
      pos.set(id, { x: PAD + offset + i * (W + GAP_X), y: PAD + d * (H + GAP_Y) })
  }
  return pos
}

export function journeySvg(nodes: GraphNode[], title: string): string {
  if (nodes.length === 0) return ''
  const pos = layout(nodes)
  const width = Math.max(...[...pos.values()].map((p) => p.x)) + W + PAD
  const height = Math.max(...[...pos.values()].map((p) => p.y)) + H + PAD
  const parts: string[] = []
  parts.push(
    `<svg class="journey-graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="journey-graph-title">`,
    `<title id="journey-graph-title">${esc(title)}</title>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#6b7280"/></marker></defs>',
  )
  for (const n of nodes) {
    const from = pos.get(n.id)!
    for (const e of n.edges) {
      const to = pos.get(e.to)
      if (!to) continue
      const x1 = from.x + W / 2
      const y1 = from.y + H
      const x2 = to.x + W / 2
      const y2 = to.y
      // An edge back up (a loop through a wait) bends around the right of the boxes.
      const d =
        y2 > y1
          ? `M${x1} ${y1} C${x1} ${y1 + GAP_Y / 2} ${x2} ${y2 - GAP_Y / 2} ${x2} ${y2}`
          : `M${from.x + W} ${from.y + H / 2} C${from.x + W + 60} ${from.y + H / 2} ${to.x + W + 60} ${to.y + H / 2} ${to.x + W} ${to.y + H / 2}`
      parts.push(`<path d="${d}" fill="none" stroke="#6b7280" stroke-width="1.5" marker-end="url(#arrow)"/>`)
      if (e.label)
        parts.push(
          `<text x="${(x1 + x2) / 2 + 4}" y="${y2 > y1 ? (y1 + y2) / 2 : from.y + H / 2 - 4}" font-size="11" fill="#374151">${esc(cut(e.label, 18))}</text>`,
        )
    }
  }
  for (const n of nodes) {
    const p = pos.get(n.id)!
    const stroke = n.error ? '#b91c1c' : n.type === 'trigger' ? '#1d4ed8' : '#4b5563'
    parts.push(
      `<g class="journey-node" data-node="${esc(n.id)}">`,
      `<rect x="${p.x}" y="${p.y}" width="${W}" height="${H}" rx="8" fill="${n.error ? '#fef2f2' : '#ffffff'}" stroke="${stroke}" stroke-width="${n.error ? 2.5 : 1.5}"/>`,
      `<text x="${p.x + 10}" y="${p.y + 18}" font-size="13" font-weight="600" fill="#111827">${esc(cut(n.label || n.id, 22))}</text>`,
      `<text x="${p.x + 10}" y="${p.y + 34}" font-size="11" fill="#4b5563">${esc(n.type)}${n.label ? ` · ${esc(cut(n.id, 12))}` : ''}</text>`,
      `<text x="${p.x + 10}" y="${p.y + 50}" font-size="11" fill="#1f2937">${n.passed.toLocaleString('en-US')} passed${n.waiting ? ` · ${n.waiting.toLocaleString('en-US')} waiting` : ''}</text>`,
      '</g>',
    )
  }
  parts.push('</svg>')
  return parts.join('')
}
