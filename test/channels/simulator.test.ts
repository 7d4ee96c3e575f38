import { afterAll, describe, expect, test } from 'bun:test'
import {
  clickUrl,
  createSimulatorProvider,
  DEFAULT_SIMULATOR_RATES,
  parseSimulatorRates,
  type SimulatorOptions,
} from '../../src/channels/simulator'
import type { ChannelFeedback, ChannelProvider, OutgoingEmail, OutgoingText } from '../../src/channels/types'
import { encodeLinkToken } from '../../src/lib/tracking-token'

// The simulator with a seeded random and a feedback that records what it is told.

/** mulberry32: a tiny seeded PRNG, so every run draws the same fates. */
function seeded(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Call = [string, string, ...unknown[]]
function recorder() {
  const calls: Call[] = []
  const on =
    (name: string) =>
    (id: string, ...rest: unknown[]) =>
      void calls.push([name, id, ...rest])
  const feedback: ChannelFeedback = {
    messageOf: () => null,
    now: () => 0,
    delivered: on('delivered'),
    failed: on('failed'),
    opened: on('opened'),
    clicked: on('clicked'),
    bounced: on('bounced'),
    replied: on('replied'),
  }
  return { calls, feedback }
}

const open: ChannelProvider[] = []
afterAll(() => Promise.all(open.map((p) => p.close())))
/**
 * A scheduler the test runs by hand: `flush()` runs everything scheduled, in time order, so a
 * check that something did NOT happen needs no wait.
 */
function manualSchedule() {
  let queue: { at: number; fn: () => void; cancelled: boolean }[] = []
  return {
    schedule(ms: number, fn: () => void) {
      const entry = { at: ms, fn, cancelled: false }
      queue.push(entry)
      return () => {
        entry.cancelled = true
      }
    },
    flush() {
      const due = queue.sort((a, b) => a.at - b.at)
      queue = []
      for (const e of due) if (!e.cancelled) e.fn()
    },
  }
}

function simulator(options: Omit<SimulatorOptions, 'feedback'>) {
  const r = recorder()
  const scheduler = manualSchedule()
  const provider = createSimulatorProvider({
    delayMs: 5,
    now: () => 1_700_000_000_000,
    schedule: scheduler.schedule,
    ...options,
    feedback: r.feedback,
  })
  open.push(provider)
  return { provider, calls: r.calls, flush: scheduler.flush }
}

const email = (i = 0, over: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  channel: 'email',
  id: `m${i}`,
  clientId: 'c1',
  messageId: `<m${i}@herald>`,
  from: { email: 'offers@news.example', name: null },
  replyTo: null,
  to: `reader${i}@customer.example`,
  envelopeFrom: 'bounce@news.example',
  subject: 'Spring offers',
  html: '<p><a href="https://herald.example/u/x">unsubscribe</a> <a href="https://shop.example/spring?a=1&amp;b=2">Shop</a></p>',
  text: 'Shop now',
  headers: {},
  dkim: null,
  ...over,
})
const sms = (over: Partial<OutgoingText> = {}): OutgoingText => ({
  channel: 'sms',
  id: 's1',
  clientId: 'c1',
  messageId: '<s1@herald>',
  to: '+15550002222',
  from: null,
  body: 'hi',
  statusCallbackUrl: 'https://herald.example/cb',
  ...over,
})

describe('parseSimulatorRates', () => {
  test('reads the HERALD_SIMULATOR_RATES form; rates left out keep their defaults', () => {
    expect(parseSimulatorRates('delivered=0.97,opened=0.45,clicked=0.12,bounced=0.02,replied=0.01')).toEqual({
      delivered: 0.97,
      opened: 0.45,
      clicked: 0.12,
      bounced: 0.02,
      replied: 0.01,
    })
    expect(parseSimulatorRates(' opened = 1 ')).toEqual({ ...DEFAULT_SIMULATOR_RATES, opened: 1 })
    expect(parseSimulatorRates(null)).toEqual({ ...DEFAULT_SIMULATOR_RATES })
  })

  test.each([
    'spam=0.1',
    'opened=2',
    'opened=-0.1',
    'opened=',
    'opened',
    'opened=abc',
  ])('%s is refused', (bad) => {
    expect(() => parseSimulatorRates(bad)).toThrow(/HERALD_SIMULATOR_RATES/)
  })
})

describe('simulator provider', () => {
  test('everything on: delivered now, then opened, clicked (first real link), replied', async () => {
    const { provider, calls, flush } = simulator({
      rates: 'delivered=1,bounced=0,opened=1,clicked=1,replied=1',
    })
    expect(await provider.send(email())).toEqual({ providerMessageId: null, delivered: true })
    flush()
    const ua = expect.stringContaining('Mozilla/5.0 (')
    expect(calls).toContainEqual(['opened', 'm0', ua, 1_700_000_000_000])
    expect(calls).toContainEqual([
      'clicked',
      'm0',
      'https://shop.example/spring?a=1&b=2',
      ua,
      1_700_000_000_000,
    ])
    expect(calls).toContainEqual([
      'replied',
      'm0',
      { from: 'reader0@customer.example', subject: 'Re: Spring offers', text: expect.any(String) },
      1_700_000_000_000,
    ])
    expect(calls.findIndex((c) => c[0] === 'opened')).toBeLessThan(calls.findIndex((c) => c[0] === 'clicked'))
    expect(calls.map((c) => c[0])).not.toContain('delivered') // the queue records the delivery itself
  })

  test('bounced=1: a hard bounce for email, a failure for other channels; never delivered', async () => {
    const { provider, calls, flush } = simulator({ rates: 'bounced=1' })
    expect(await provider.send(email())).toEqual({ providerMessageId: null, delivered: false })
    expect(await provider.send(sms())).toEqual({ providerMessageId: null, delivered: false })
    flush()
    expect(calls).toContainEqual([
      'bounced',
      'm0',
      { type: 'hard', statusCode: '5.1.1', diagnostic: expect.stringContaining('reader0@customer.example') },
      1_700_000_000_000,
    ])
    expect(calls).toContainEqual(['failed', 's1', expect.any(String), 1_700_000_000_000])
    expect(calls.map((c) => c[0]).sort()).toEqual(['bounced', 'failed'])
  })

  test('texts are never opened or clicked; voice is never replied to', async () => {
    const { provider, calls, flush } = simulator({
      rates: 'delivered=1,bounced=0,opened=1,clicked=1,replied=1',
    })
    await provider.send(sms())
    await provider.send(sms({ channel: 'voice', id: 'v1' }))
    flush()
    expect(calls.map((c) => [c[0], c[1]])).toEqual([['replied', 's1']])
  })

  test('seeded: 2,000 emails land near the configured rates, the same way every run', async () => {
    const run = async () => {
      const { provider, calls, flush } = simulator({ rates: null, random: seeded(42), delayMs: 1 })
      const results = await Promise.all(Array.from({ length: 2000 }, (_, i) => provider.send(email(i))))
      flush()
      const count = (name: string) => calls.filter((c) => c[0] === name).length
      return {
        delivered: results.filter((r) => r.delivered).length,
        bounced: count('bounced'),
        failed: count('failed'),
        opened: count('opened'),
        clicked: count('clicked'),
        replied: count('replied'),
      }
    }
    const first = await run()
    expect(await run()).toEqual(first)
    expect(first.delivered + first.bounced + first.failed).toBe(2000)
    expect(first.bounced / 2000).toBeCloseTo(0.02, 1)
    expect(first.failed / 2000).toBeCloseTo(0.01, 1)
    expect(first.opened / first.delivered).toBeGreaterThan(0.4)
    expect(first.opened / first.delivered).toBeLessThan(0.5)
    expect(first.clicked / first.delivered).toBeGreaterThan(0.09)
    expect(first.clicked / first.delivered).toBeLessThan(0.15)
    expect(first.clicked).toBeLessThanOrEqual(first.opened)
    expect(first.replied / first.delivered).toBeLessThan(0.03)
  })

  test('close() cancels what is still to come', async () => {
    const { provider, calls, flush } = simulator({
      rates: 'delivered=1,bounced=0,opened=1,clicked=1,replied=1',
      delayMs: 40,
    })
    await provider.send(email())
    await provider.close()
    flush()
    expect(calls).toEqual([])
  })
})

describe('clickUrl', () => {
  test('a tracked link reports the URL it leads to; no link at all gives example.com', () => {
    const key = Buffer.alloc(32, 7)
    const id = '0193a1b2-c3d4-7000-8000-000000000001'
    const tracked = `https://herald.example/t/c/${encodeLinkToken(key, 'c1', 'click', id, 'https://shop.example/x')}`
    const unsub = `https://herald.example/u/${encodeLinkToken(key, 'c1', 'unsubscribe', id)}`
    expect(clickUrl(email(0, { html: `<a href="${unsub}">u</a><a href="${tracked}">shop</a>` }))).toBe(
      'https://shop.example/x',
    )
    expect(clickUrl(email(0, { html: '<p>no links</p>' }))).toBe('https://example.com/')
    expect(clickUrl(email(0, { html: null }))).toBe('https://example.com/')
  })
})
