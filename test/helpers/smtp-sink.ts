import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

// A real smtp-server listener on 127.0.0.1 for the smtp provider's tests: it records what each
// delivery carried and can answer chosen recipients with an error reply. Close it after the
// providers that use it (a server waits for its clients' connections to end).

export interface Received {
  mailFrom: string
  rcptTo: string[]
  raw: Buffer
  secure: boolean
  user: string | null
  /** The smtp-server session (one per connection) that carried it. */
  session: string
  /** When its data ended (ms since the epoch). */
  at: number
}

export interface Sink {
  port: number
  received: Received[]
  /** Recipient address → SMTP reply code to refuse it with at RCPT TO. */
  refuse: Map<string, number>
  /** Recipient domains whose RCPT TO is never answered (the connection stalls) while listed. */
  stall: Set<string>
  /** Sessions that stalled on a recipient of a `stall` domain, in order. */
  stalled: string[]
  /** Sessions whose connection has ended. */
  closed: Set<string>
  close(): Promise<void>
}

/** An `onAuth` that lets in only `user` with `password` (a relay of one account's own). */
export const onlyLogin =
  (user: string, password: string): NonNullable<SMTPServerOptions['onAuth']> =>
  (auth, _session, done) =>
    auth.username === user && auth.password === password
      ? done(null, { user })
      : done(Object.assign(new Error('Authentication failed'), { responseCode: 535 }))

export async function startSink(options: SMTPServerOptions = {}): Promise<Sink> {
  const received: Received[] = []
  const refuse = new Map<string, number>()
  const stall = new Set<string>()
  const stalled: string[] = []
  const closed = new Set<string>()
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    closeTimeout: 1000,
    onAuth(auth, _session, done) {
      if (auth.username === 'herald' && auth.password === 's3cret') done(null, { user: auth.username })
      else done(Object.assign(new Error('Authentication failed'), { responseCode: 535 }))
    },
    ...options, // an `onAuth` of the test's (its own credentials) wins

    onRcptTo(address, session, done) {
      if (stall.has(address.address.split('@')[1] ?? '')) {
        stalled.push(session.id)
        return // no reply, ever: the client's timeouts must notice
      }
      const code = refuse.get(address.address)
      if (code === undefined) return done()
      done(
        Object.assign(new Error(code < 500 ? 'Try again later' : 'No such user here'), {
          responseCode: code,
        }),
      )
    },
    onClose(session) {
      closed.add(session.id)
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
          user: (session.user as string | undefined) ?? null,
          session: session.id,
          at: Date.now(),
        })
        done(null, 'Ok: queued as QID42')
      })
    },
  })
  // A sender killed mid-conversation resets its connections; that is expected in crash tests.
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const sink: Sink = {
    port: (server.server.address() as { port: number }).port,
    received,
    refuse,
    stall,
    stalled,
    closed,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  return sink
}

export interface SelfSigned {
  key: string
  cert: string
}

/** A throw-away certificate for 127.0.0.1 and localhost, made with the openssl CLI; null without it. */
export function selfSignedCert(): SelfSigned | null {
  const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'))
  try {
    const run = Bun.spawnSync(
      [
        'openssl',
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdout: 'ignore', stderr: 'pipe' },
    )
    if (run.exitCode !== 0) return null
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    }
  } catch {
    return null // no openssl on this machine
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A header's value from a raw message's head, unfolded and trimmed; null when it has none. */
export function headerOf(raw: Buffer, name: string): string | null {
  const head = raw
    .toString('latin1')
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ')
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? null
}

/** The Message-ID header of a raw message, angle brackets included. */
export function messageIdOf(raw: Buffer): string | null {
  const text = raw.toString('latin1')
  return /^Message-ID:\s*(<[^>]+>)/im.exec(text.slice(0, text.indexOf('\r\n\r\n')))?.[1] ?? null
}
