import type { AddressInfo } from 'node:net'
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server'
import type { AppContext } from '../context'
import { receiveInbound } from '../services/inbound/receive'
import { INBOUND_LIMIT } from '../services/inbound/upload'

// The optional inbound SMTP listener (HERALD_INBOUND_SMTP_PORT): the MX of the inbound domain
// points here, and bounces, complaints, replies and mailto unsubscribes arrive at the VERP
// addresses Herald put into its mail. No AUTH (anyone may deliver to our addresses, as to any
// MX) and no STARTTLS (smtp-server's built-in certificate is public, so it would protect
// nothing); put a TLS-terminating MTA in front when that matters.

export interface InboundSmtp {
  /** The bound port (useful with HERALD_INBOUND_SMTP_PORT=0). */
  port: number
  close(): Promise<void>
}

/** A mail transaction names a handful of recipients; more is a spammer's fan-out. */
const MAX_RECIPIENTS = 50

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

export async function startInboundSmtp(app: AppContext): Promise<InboundSmtp> {
  const domain = app.config.inboundDomain
  const server = new SMTPServer({
    name: domain ?? undefined,
    banner: 'Herald inbound mail',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: INBOUND_LIMIT,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 5_000,
    // MXs see a few connections at a time; a flood beyond this gets 421 instead of our memory.
    maxClients: 100,
    onRcptTo(address, session, callback) {
      const at = address.address.lastIndexOf('@')
      const rcptDomain = at < 0 ? '' : address.address.slice(at + 1).toLowerCase()
      if (domain !== null && rcptDomain !== domain)
        return callback(smtpError(550, `5.7.1 Relaying denied: this server only accepts mail for ${domain}`))
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
        return callback(smtpError(452, '4.5.3 Too many recipients'))
      callback()
    },
    onData(stream, session, callback) {
      readLimited(stream)
        .then(async (raw) => {
          if (stream.sizeExceeded || raw === null)
            return callback(smtpError(552, `5.3.4 Message exceeds the limit of ${INBOUND_LIMIT} bytes`))
          const result = await receiveInbound(app, raw, { envelope: envelopeOf(session) })
          app.log.info('inbound mail', { session: session.id, kind: result.kind, reason: result.reason })
          callback(null, `2.0.0 Accepted (${result.kind})`)
        })
        .catch((err: unknown) => {
          // Our failure, not the sender's: a temporary error makes the sending MTA retry later.
          app.log.error('inbound mail failed', { session: session.id, error: String(err) })
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'))
        })
    },
  })
  server.on('error', (err) => app.log.error('inbound SMTP error', { error: String(err) }))

  const port = app.config.inboundSmtpPort ?? 0
  await new Promise<void>((resolve, reject) => {
    const net = server.listen(port, app.config.host, () => resolve())
    net.once('error', reject)
  })
  const bound = (server.server.address() as AddressInfo).port
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The whole message in memory, or null once it passes the limit (the rest is drained, not kept). */
async function readLimited(stream: SMTPServerDataStream): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes <= INBOUND_LIMIT) chunks.push(chunk)
  }
  return bytes > INBOUND_LIMIT ? null : Buffer.concat(chunks)
}

function envelopeOf(session: SMTPServerSession) {
  const from = session.envelope.mailFrom
  return {
    from: from === false ? undefined : from.address,
    to: session.envelope.rcptTo.map((r) => r.address),
  }
}
