import { createProvider } from '../../src/channels/registry'
import type { Channel, ChannelProvider } from '../../src/channels/types'
import { inTransaction } from '../../src/db/transaction'
import { createFeedback } from '../../src/services/messages/feedback'
import type { TestApp } from '../helpers/app'

// What the in-process benches share: a list of N contacts written straight into the tables (the
// import path has benches of its own), and the capture provider on every channel.

/** N subscribed contacts, confirmed members of the list, `timezone(i)` each (null: none). */
export async function insertListContacts(
  t: TestApp,
  clientId: string,
  listId: string,
  n: number,
  now: number,
  timezone: (i: number) => string | null = () => null,
): Promise<void> {
  await inTransaction(t.ctx.sqlite, async () => {
    const c = t.ctx.sqlite.prepare(
      "INSERT INTO contacts (id, client_id, client_no, email, first_name, timezone, status, custom_fields, created_at, updated_at) VALUES (?1, ?2, (SELECT no FROM clients WHERE id = ?2), ?3, ?4, ?5, 'subscribed', '{}', ?6, ?6)",
    )
    const m = t.ctx.sqlite.prepare(
      "INSERT INTO list_members (list_id, contact_id, status, added_at, confirmed_at) VALUES (?1, ?2, 'confirmed', ?3, ?3)",
    )
    for (let i = 0; i < n; i++) {
      const id = Bun.randomUUIDv7()
      await c.run(id, clientId, `person${i}@customer${i % 50}.example`, `P${i}`, timezone(i), now)
      await m.run(listId, id, now)
    }
    await t.ctx.sqlite.run('UPDATE lists SET member_count = ? WHERE id = ?', [n, listId])
    await t.ctx.sqlite.run('UPDATE clients SET contact_count = ? WHERE id = ?', [n, clientId])
  })
}

/** The capture provider, and it for every channel (close it when done). */
export function captureProviders(t: TestApp) {
  const capture = createProvider('capture', t.ctx.config, createFeedback(t.ctx))
  const providers = Object.fromEntries(
    (['email', 'sms', 'voice', 'whatsapp', 'rcs'] as Channel[]).map((c) => [c, capture]),
  ) as Record<Channel, ChannelProvider>
  return { capture, providers }
}

/**
 * Holds the event loop open until the returned function is called. Nothing else does in a bench
 * without a server: the render threads are unref'd, so a wait on one of them would let the
 * process end silently, mid-run, with exit code 0.
 */
export function keepAlive(): () => void {
  const timer = setInterval(() => {}, 60_000)
  return () => clearInterval(timer)
}
