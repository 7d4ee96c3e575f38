import { decodeLinkToken } from '../lib/tracking-token'
import type { ChannelFeedback, ChannelProvider, Outgoing, ProviderCapabilities, SendResult } from './types'

// A provider that sends nothing and makes up realistic outcomes, for evaluations and load tests
// (HERALD_*_PROVIDER=simulator). Each message draws its fate once at send time from the rates
// of HERALD_SIMULATOR_RATES; what follows a send (bounce, open, click, reply) is reported through
// the same feedback real traffic uses, a little later, so campaigns show live statistics.

export interface SimulatorRates {
  /** Share of messages accepted; what is neither accepted nor bounced fails. */
  delivered: number
  /** Of accepted messages: opened (email), clicked (email; implies opened), replied (not voice). */
  opened: number
  clicked: number
  replied: number
  /** Hard bounce (email) or undeliverable number (other channels). */
  bounced: number
}

export const DEFAULT_SIMULATOR_RATES: Readonly<SimulatorRates> = Object.freeze({
  delivered: 0.97,
  opened: 0.45,
  clicked: 0.12,
  bounced: 0.02,
  replied: 0.01,
})

/** `delivered=0.97,opened=0.45,…` (each 0..1; the ones left out keep their defaults). */
export function parseSimulatorRates(text: string | null | undefined): SimulatorRates {
  const rates = { ...DEFAULT_SIMULATOR_RATES }
  for (const part of (text ?? '').split(',')) {
    if (part.trim() === '') continue
    const [name = '', value] = part.split('=').map((s) => s.trim())
    if (!(name in rates)) throw new Error(`HERALD_SIMULATOR_RATES: unknown rate "${name}"`)
    const n = Number(value)
    if (value === undefined || value === '' || Number.isNaN(n) || n < 0 || n > 1)
      throw new Error(`HERALD_SIMULATOR_RATES: ${name} must be a number from 0 to 1`)
    rates[name as keyof SimulatorRates] = n
  }
  return rates
}

export interface SimulatorOptions {
  rates: SimulatorRates | string | null
  feedback: ChannelFeedback
  /** Uniform [0, 1); inject a seeded one for repeatable tests. */
  random?: () => number
  /** Events happen at random within this many ms after the send (default 3000). */
  delayMs?: number
  now?: () => number
  /**
   * Runs fn after ms; returns a cancel. Default: a timer that does not keep the process alive.
   * Tests inject one they flush by hand, so "nothing happened" needs no wait.
   */
  schedule?: (ms: number, fn: () => void) => () => void
}

const timerSchedule = (ms: number, fn: () => void) => {
  const timer = setTimeout(fn, ms)
  timer.unref()
  return () => clearTimeout(timer)
}

const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36'
const REPLIES = [
  'Thanks, sounds good!',
  'Can you tell me more?',
  'Not interested, thanks.',
  'Call me next week.',
]

/** Simulated traffic reaches nobody: bodies are kept like capture's; reports come later. */
export const SIMULATOR_CAPABILITIES: ProviderCapabilities = {
  storesContent: true,
  reportsDelivery: true,
  needsVerifiedSender: false,
}

export function createSimulatorProvider(options: SimulatorOptions): ChannelProvider {
  const rates =
    typeof options.rates === 'object' && options.rates ? options.rates : parseSimulatorRates(options.rates)
  const random = options.random ?? Math.random
  const delayMs = options.delayMs ?? 3000
  const now = options.now ?? Date.now
  const { feedback } = options
  const schedule = options.schedule ?? timerSchedule
  const pending = new Set<() => void>()

  const later = (ms: number, fn: () => void) => {
    const cancel = schedule(ms, () => {
      pending.delete(cancel)
      fn()
    })
    pending.add(cancel)
  }

  return {
    name: 'simulator',
    capabilities: SIMULATOR_CAPABILITIES,
    async send(m: Outgoing): Promise<SendResult> {
      const fate = random()
      const email = m.channel === 'email'
      if (fate < rates.bounced) {
        later(random() * Math.min(delayMs, 1000), async () => {
          if (email)
            await feedback.bounced(
              m.id,
              {
                type: 'hard',
                statusCode: '5.1.1',
                diagnostic: `smtp; 550 5.1.1 <${m.to}>: user unknown (simulated)`,
              },
              now(),
            )
          else await feedback.failed(m.id, 'undeliverable number (simulated)', now())
        })
        return { providerMessageId: null, delivered: false }
      }
      if (fate < rates.bounced + Math.max(0, 1 - rates.delivered - rates.bounced)) {
        later(random() * delayMs, async () => await feedback.failed(m.id, 'not delivered (simulated)', now()))
        return { providerMessageId: null, delivered: false }
      }
      // Clicks imply opens: open with the larger rate, click as a share of the opens.
      const openRate = Math.max(rates.opened, rates.clicked)
      const opens = email && random() < openRate
      const clicks = opens && random() < rates.clicked / openRate
      const replies = m.channel !== 'voice' && random() < rates.replied
      const openAt = random() * delayMs
      if (opens) later(openAt, async () => await feedback.opened(m.id, USER_AGENT, now()))
      if (clicks)
        later(
          openAt + random() * delayMs,
          async () => await feedback.clicked(m.id, clickUrl(m), USER_AGENT, now()),
        )
      if (replies) {
        const text = REPLIES[Math.floor(random() * REPLIES.length)]!
        const subject = email ? `Re: ${m.subject}` : null
        later(
          openAt + random() * delayMs,
          async () => await feedback.replied(m.id, { from: m.to, subject, text }, now()),
        )
      }
      return { providerMessageId: null, delivered: true }
    },
    async close() {
      for (const cancel of pending) cancel()
      pending.clear()
    },
  }
}

/**
 * The first link a reader could follow: the first http(s) href of the html, skipping the
 * unsubscribe link; for a tracked link (/t/c/<token>) the URL it leads to, as a click reports.
 */
export function clickUrl(m: Outgoing): string {
  const html = m.channel === 'email' ? (m.html ?? '') : ''
  for (const match of html.matchAll(/<a\b[^>]*?\bhref\s*=\s*["'](https?:\/\/[^"']+)["']/gi)) {
    const href = match[1]!.replaceAll('&amp;', '&')
    const own = /\/(t\/c|u)\/([^/?#]+)$/.exec(href)
    if (!own) return href
    const decoded = own[1] === 't/c' ? decodeLinkToken(own[2]!) : null
    if (decoded?.kind === 'click' && decoded.url) return decoded.url
  }
  return 'https://example.com/'
}
