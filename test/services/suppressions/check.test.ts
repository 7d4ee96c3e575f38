import { describe, expect, test } from 'bun:test'
import { suppressions } from '../../../src/db/schema'
import { createSuppressedAmong } from '../../../src/services/suppressions/check'
import { createTestApp, type TestApp } from '../../helpers/app'

describe('the suppression check of a batch of sends', async () => {
  const t: TestApp = await createTestApp()
  const other = await t.client('Other')
  {
    const row = (clientId: string, email: string, n: number) => ({
      id: `sup_${clientId.slice(-6)}_${n}`,
      clientId,
      email,
      source: 'admin' as const,
      createdAt: 0,
    })
    // More than one statement's worth of addresses, every seventh suppressed for the first client.
    const rows = []
    for (let n = 0; n < 1200; n += 7) rows.push(row(t.defaultClientId, `p${n}@acme.io`, n))
    rows.push(row(other, 'only-other@acme.io', 1))
    await t.ctx.db.insert(suppressions).values(rows)
  }

  test('answers per client, ignoring case and surrounding spaces, past 500 addresses', async () => {
    const among = createSuppressedAmong(t.ctx.db)
    const recipients = []
    for (let n = 0; n < 1200; n++)
      recipients.push({ clientId: t.defaultClientId, email: n % 2 ? ` P${n}@ACME.io ` : `p${n}@acme.io` })
    recipients.push({ clientId: t.defaultClientId, email: 'only-other@acme.io' })
    recipients.push(
      { clientId: other, email: 'Only-Other@acme.io' },
      { clientId: other, email: 'p0@acme.io' },
    )
    const suppressed = await among(recipients)
    for (let n = 0; n < 1200; n++)
      expect([n, suppressed(t.defaultClientId, `p${n}@acme.io`)]).toEqual([n, n % 7 === 0])
    expect(suppressed(t.defaultClientId, ' P7@Acme.IO')).toBe(true)
    expect(suppressed(t.defaultClientId, 'only-other@acme.io')).toBe(false)
    expect(suppressed(other, 'only-other@acme.io')).toBe(true)
    expect(suppressed(other, 'p0@acme.io')).toBe(false)
  })

  test('with no recipients, nothing is read and nothing is suppressed', async () => {
    const suppressed = await createSuppressedAmong(t.ctx.db)([])
    expect(suppressed(t.defaultClientId, 'p0@acme.io')).toBe(false)
  })
})
