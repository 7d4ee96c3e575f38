import { parseIsoDuration } from '../../lib/duration'
import type { FlowNode } from './nodes'

// A sequence is a linear flow: its steps compile to send nodes `step-<i>`, each followed by a
// `wait-<i+1>` for the next step's delay (none when it is zero). A run's first step is entered
// directly, due after the first step's delay. The node ids are stable across edits of a step's
// content, so a run waiting at `step-2` resumes there on the edited steps.

export interface SequenceStep {
  channel: string
  template_id: string | null
  subject: string | null
  body_html: string | null
  body_text: string | null
  delay: string | { days?: number; hours?: number; minutes?: number }
}

const MINUTE = 60_000

/** The step's wait in ms, or null when the delay is not a duration we take. */
export function delayMs(delay: SequenceStep['delay'] | undefined): number | null {
  if (delay === undefined) return 0
  if (typeof delay === 'string') return parseIsoDuration(delay)
  return ((delay.days ?? 0) * 24 * 60 + (delay.hours ?? 0) * 60 + (delay.minutes ?? 0)) * MINUTE
}

export const stepNodeId = (step: number) => `step-${step}`

/** The step a node of a linear flow sends, or null for another node. */
export function stepOfNode(nodeId: string | null | undefined): number | null {
  if (!nodeId?.startsWith('step-')) return null
  const n = Number(nodeId.slice(5))
  return Number.isInteger(n) && n >= 0 ? n : null
}

export function linearNodes(steps: readonly SequenceStep[]): FlowNode[] {
  const nodes: FlowNode[] = []
  steps.forEach((s, i) => {
    const after = steps[i + 1]
    const wait = after ? (delayMs(after.delay) ?? 0) : 0
    const next = after ? (wait > 0 ? `wait-${i + 1}` : stepNodeId(i + 1)) : null
    nodes.push({
      id: stepNodeId(i),
      type: 'send',
      channel: s.channel,
      template_id: s.template_id,
      subject: s.subject,
      body_html: s.body_html,
      body_text: s.body_text,
      next,
    })
    if (after && wait > 0)
      nodes.push({
        id: `wait-${i + 1}`,
        type: 'wait',
        duration: `PT${wait / 1000}S`,
        next: stepNodeId(i + 1),
      })
  })
  return nodes
}
