import { join } from 'node:path'
import dns2 from 'dns2'
import { api, BenchError, type Herald, ROOT, track } from './lib'

// The pieces of the SMTP benches: a DNS server for the sending domain's records, a verified,
// DKIM-signing sender, and an SMTP sink in a child process (test/bench/smtp.ts), optionally
// pinned to cores.

/** An authoritative TXT server on loopback for the domain's DKIM/SPF/DMARC records. */
export async function startDns(zone: Map<string, string[]>) {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request)
      const q = request.questions[0]!
      const parts = zone.get(q.name.toLowerCase())
      if (parts)
        response.answers.push({
          name: q.name,
          type: dns2.Packet.TYPE.TXT,
          class: dns2.Packet.CLASS.IN,
          ttl: 60,
          data: parts,
        } as never)
      send(response)
    },
  })
  const address = await new Promise<{ port: number }>((resolve) => {
    server.on('listening', (a: { udp: { port: number } }) => resolve(a.udp))
    server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  })
  return { address: `127.0.0.1:${address.port}`, close: () => server.close() }
}

export async function startSink(cpus: string | null) {
  const cmd = [process.execPath, 'run', join(ROOT, 'test/bench/smtp.ts'), 'sink']
  const sink = track(
    Bun.spawn(cpus ? ['taskset', '-c', cpus, ...cmd] : cmd, { stdout: 'pipe', stderr: 'inherit' }),
  )
  const port = Number(new TextDecoder().decode((await sink.stdout.getReader().read()).value).trim())
  if (!port) throw new BenchError('the sink did not start')
  return { sink, port }
}

/** A verified sender `offers@<domain>` for the client of `query` (`?client_id=…`), its records in `zone`. */
export async function verifiedSender(h: Herald, zone: Map<string, string[]>, query: string, domain: string) {
  const d = (await api(h, 'POST', `/api/v1/domains${query}`, { domain })).body.data
  for (const r of d.dns_records as { name: string; value: string; value_parts?: string[] }[])
    zone.set(r.name.toLowerCase(), r.value_parts ?? [r.value])
  if (!(await api(h, 'POST', `/api/v1/domains/${d.id}/verify`)).body.data.verified)
    throw new BenchError('the domain did not verify')
  await api(h, 'POST', `/api/v1/senders${query}`, { from_email: `offers@${domain}`, from_name: domain })
}

/** Waits while the campaign is sending; its status after. */
export async function sendingEnds(h: Herald, campaignId: string): Promise<string> {
  let status = 'sending'
  while (status === 'sending') {
    await Bun.sleep(50)
    status = (await api(h, 'GET', `/api/v1/campaigns/${campaignId}`)).body.data.status as string
  }
  return status
}
