import { SMTPServer } from 'smtp-server'

export interface SinkMessage {
  envelopeFrom: string
  recipients: string[]
  raw: string
  /** The Message-ID header, angle brackets included. */
  messageId: string | null
}

/** A local SMTP server that accepts every message and keeps it (no TLS, no auth): 127.0.0.1 only. */
export async function startSmtpSink() {
  const received: SinkMessage[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString()
        const head = raw.slice(0, raw.indexOf('\r\n\r\n'))
        received.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          recipients: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? null,
        })
        callback()
      })
    },
  })
  // A sender killed mid-conversation resets its connections; that is expected here.
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as { port: number }).port
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
