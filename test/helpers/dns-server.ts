import { afterAll } from 'bun:test'
import { createServer as createNetServer } from 'node:net'
import dns2 from 'dns2'

const { Packet } = dns2

/** TXT records by name; each record is its list of character-strings, as in a zone file. */
export type Zone = Map<string, string[][]>

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for HERALD_DNS_SERVERS. */
  address: string
  port: number
  zone: Zone
  /**
   * A and AAAA records by name (each family answered from its addresses), TTL 0; a function is
   * called for every query (a name that answers differently over time: DNS rebinding).
   */
  hosts: Map<string, string[] | (() => string[])>
  /** Every question asked, as `<TYPE> <name>` (`A hook.example`). */
  queries: string[]
  /** Names answered with SERVFAIL (a broken upstream). */
  failing: Set<string>
  /** A resolver with the `dns.promises.resolve` signature, preserving multi-string records (for mailauth). */
  resolve(name: string, type: string): Promise<string[][]>
  close(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/**
 * An authoritative DNS server on loopback (UDP and TCP on one free port) answering TXT queries
 * from `zone` and A/AAAA queries from `hosts`: unknown names are NXDOMAIN, known names without
 * records of the type asked answer NOERROR/no data.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone: Zone = new Map()
  const failing = new Set<string>()
  const hosts: TestDnsServer['hosts'] = new Map()
  const queries: string[] = []
  const typeName = (type: number | undefined) =>
    Object.entries(Packet.TYPE).find(([, v]) => v === type)?.[0] ?? String(type)
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const question = request.questions[0]
      const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '')
      response.header.aa = 1
      queries.push(`${typeName(question?.type)} ${name}`)
      const host = hosts.get(name)
      if (failing.has(name)) response.header.rcode = 2
      else if (!zone.has(name) && !host) response.header.rcode = 3
      else if (host && (question?.type === Packet.TYPE.A || question?.type === Packet.TYPE.AAAA)) {
        const v6 = question.type === Packet.TYPE.AAAA
        for (const address of typeof host === 'function' ? host() : host)
          if (address.includes(':') === v6)
            response.answers.push({
              name: question.name,
              type: question.type,
              class: Packet.CLASS.IN,
              ttl: 0,
              address,
            } as never)
      } else if (question?.type === Packet.TYPE.TXT)
        for (const data of zone.get(name) ?? [])
          response.answers.push({
            name: question.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 60,
            data,
          } as never)
      send(response)
    },
  })
  let port = 0
  for (let attempt = 0; ; attempt++) {
    port = await freePort()
    try {
      await server.listen({
        udp: { port, address: '127.0.0.1' },
        tcp: { port, address: '127.0.0.1' },
      } as never)
      break
    } catch (err) {
      if (attempt >= 4) throw err
    }
  }
  const client = new dns2({ nameServers: ['127.0.0.1'], port, recursive: false, timeout: 2000 } as never)
  const t: TestDnsServer = {
    address: `127.0.0.1:${port}`,
    port,
    zone,
    hosts,
    queries,
    failing,
    async resolve(name, type) {
      const answer = await client.resolve(name, type)
      const records = (answer.answers as unknown as { data: string[] | string }[]).map((a) =>
        Array.isArray(a.data) ? a.data : [a.data],
      )
      if (records.length === 0)
        throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      return records
    },
    close: () => server.close() as Promise<void>,
  }
  afterAll(() => t.close())
  return t
}
