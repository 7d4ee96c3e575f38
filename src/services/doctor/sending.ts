import { type AppContext, withActor } from '../../context'
import { clients, domains } from '../../db/schema'
import { systemActor } from '../actors/actor'
import { createTxtResolver } from '../domains/dns'
import { runChecks } from '../domains/verify'
import { testSendingProfile } from '../sending-profiles/connection-test'
import { effectiveProfile } from '../sending-profiles/effective'
import { TEXT_CHANNELS } from '../sending-profiles/inputs'
import { type DoctorCheck, fail, ok } from './check'

/** Each sending domain's DNS now (DKIM and SPF must pass), looked up, never written. */
export async function domainChecks(app: AppContext): Promise<DoctorCheck[]> {
  const resolver = createTxtResolver(app.config.dnsServers)
  const rows = await app.db.select().from(domains)
  return Promise.all(
    rows.map(async (row) => {
      const c = await runChecks(app, row, resolver)
      const line = `DKIM ${c.dkim.outcome}, SPF ${c.spf.outcome}, DMARC ${c.dmarc.outcome}`
      return c.dkim.outcome === 'pass' && c.spf.outcome === 'pass'
        ? ok(`domain ${row.domain}`, line)
        : fail(`domain ${row.domain}`, `${line}: publish the records GET /api/v1/domains/${row.id} lists`)
    }),
  )
}

/** The connection test of every client's SMTP and Twilio accounts (capture and simulator need none). */
export async function profileChecks(app: AppContext): Promise<DoctorCheck[]> {
  const ctx = withActor(app, systemActor('doctor'), 'doctor')
  const out: DoctorCheck[] = []
  for (const client of await app.db.select({ id: clients.id, name: clients.name }).from(clients)) {
    const profile = await effectiveProfile(app, client.id)
    const channels = [
      ...(profile.email.provider === 'smtp' ? (['email'] as const) : []),
      ...TEXT_CHANNELS.filter((c) => profile.text[c].provider === 'twilio'),
    ]
    for (const channel of channels) {
      const name = `sending ${client.name} ${channel}`
      try {
        const r = await testSendingProfile(ctx, client.id, channel)
        out.push(r.ok ? ok(name, r.detail) : fail(name, `${r.detail} (check the client's sending profile)`))
      } catch (err) {
        out.push(fail(name, (err as Error).message))
      }
    }
  }
  return out
}
