import { Counter, Registry } from 'prom-client'
import { createRequestStats } from './request-stats'

// The process's Prometheus metrics, one registry per app context (two apps in one test process
// count apart). Counters are bumped where the work is recorded; what the database already keeps
// (campaign totals, queue depth, file sizes) is read at scrape time (collect.ts), with
// prom-client's process defaults, from the first scrape on. Labels are
// route templates, channels, statuses and kinds: never a tenant id or an address.

export type WebhookOutcome = 'succeeded' | 'retry' | 'failed'

export interface Metrics {
  readonly registry: Registry
  readonly messages: Counter<'source' | 'channel' | 'status'>
  readonly webhookDeliveries: Counter<'outcome'>
  readonly flowSteps: Counter<'kind'>
  /** One answered request: its route template (undefined: no route matched) and status. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void
  /** One send outcome written (after its transaction committed). */
  countMessage(source: string, channel: string, status: string): void
}

/**
 * Children by label values, looked up by one string: prom-client hashes a label object on every
 * call, which on the request and send paths costs more than the count itself.
 */
function cached<T>(make: (labels: string[]) => T): (labels: string[]) => T {
  const children = new Map<string, T>()
  return (labels) => {
    const key = labels.join('\u0000')
    let child = children.get(key)
    if (!child) {
      child = make(labels)
      children.set(key, child)
    }
    return child
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export function createMetrics(): Metrics {
  const registry = new Registry()
  const registers = [registry]
  const requests = createRequestStats(registry)
  const messages = new Counter({
    name: 'herald_messages_total',
    help: 'Send outcomes written by this process, by source, channel and status',
    labelNames: ['source', 'channel', 'status'] as const,
    registers,
  })
  const messageChild = cached((labels) => messages.labels(...labels))
  return {
    registry,
    observeRequest: (method, route, status, seconds) =>
      requests.observe(METHODS.has(method) ? method : 'other', route ?? 'unmatched', String(status), seconds),
    messages,
    countMessage: (source, channel, status) => messageChild([source, channel, status]).inc(),
    webhookDeliveries: new Counter({
      name: 'herald_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (retry: failed, another attempt is scheduled)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    flowSteps: new Counter({
      name: 'herald_flow_steps_total',
      help: 'Journey and sequence steps taken by this process',
      labelNames: ['kind'] as const,
      registers,
    }),
  }
}
