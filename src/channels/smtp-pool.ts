import type { ConnectionOptions } from 'node:tls'
import { parseConnectionUrl } from 'nodemailer/lib/shared'
import SMTPConnection from 'nodemailer/lib/smtp-connection'

// A pool of SMTP connections for raw, already signed messages: nodemailer's SMTPConnection
// speaks the protocol (EHLO, STARTTLS, AUTH, PIPELINING, reply parsing, timeouts); this keeps up
// to `size` of them open and hands each the next message. It replaces nodemailer's
// Mailer + smtp-pool, whose per-message machinery (MailMessage, plugins, a MimeNode stream for
// raw input) cost ~150-250 µs of CPU a message, more than the conversation itself (measured:
// 243-366 µs vs 112-118 µs a message with composition, 5 connections, 64 in flight).
// It keeps smtp-pool's rules: a refused message (RCPT or DATA) resets the session and the
// connection goes on; any other failure closes it; a connection is replaced after
// `maxMessages`; a message whose call is aborted leaves the queue, or closes the connection
// carrying it (a stalled server).

export interface SmtpPoolOptions {
  url: string
  size: number
  maxMessages: number
  connectionTimeout: number
  greetingTimeout: number
  socketTimeout: number
  tls?: ConnectionOptions
}

export interface Envelope {
  from: string
  to: string[]
}

/** What the server answered to the message: its final reply, and the queue id it named, if any. */
export interface Accepted {
  response: string
  serverMessageId?: string
}

interface Pending {
  envelope: Envelope
  raw: Buffer
  settle(err: Error | null, info?: Accepted): void
  settled: boolean
  /** Sent again once on a fresh connection when a reused one turned out closed. */
  requeued: boolean
  signal?: AbortSignal
  onAbort?: () => void
}

interface Connection {
  smtp: SMTPConnection
  ready: boolean
  busy: Pending | null
  messages: number
  gone: boolean
  /** The error the connection reported while a send was in progress (its callback may come after the close). */
  failure: SmtpError | null
}

type SmtpError = Error & { code?: string; responseCode?: number }

// A server that ended an idle connection (not one that stopped answering): worth another connection.
const closedUnder = (err: SmtpError) =>
  err.responseCode === undefined && (err.code === 'ECONNECTION' || err.code === 'ESOCKET')

export function createSmtpPool(options: SmtpPoolOptions) {
  const { auth, ...target } = parseConnectionUrl(options.url) as {
    auth?: { user: string; pass: string }
    host?: string
    port?: number
    secure?: boolean
  }
  const connectionOptions = {
    ...target,
    connectionTimeout: options.connectionTimeout,
    greetingTimeout: options.greetingTimeout,
    socketTimeout: options.socketTimeout,
    tls: options.tls,
  }
  const queue: Pending[] = []
  const connections = new Set<Connection>()
  let closed = false

  function drop(c: Connection, err?: SmtpError) {
    if (c.gone) return
    c.gone = true
    connections.delete(c)
    const busy = c.busy
    c.busy = null
    if (busy)
      busy.settle(err ?? c.failure ?? Object.assign(new Error('Connection closed'), { code: 'ECONNECTION' }))
    c.smtp.close()
    pump()
  }

  function open() {
    const smtp = new SMTPConnection(connectionOptions as ConstructorParameters<typeof SMTPConnection>[0])
    const c: Connection = { smtp, ready: false, busy: null, messages: 0, gone: false, failure: null }
    connections.add(c)
    // Before the connection is ready its failure is the next message's: with an unreachable
    // server each waiting message gets the error instead of waiting for its deadline.
    const failEarly = (err: SmtpError) => {
      if (c.gone) return
      queue.shift()?.settle(err)
      drop(c, err)
    }
    smtp.on('error', (err: SmtpError) => {
      if (!c.ready) return failEarly(err)
      // A send in progress hears the same error in its callback, which decides.
      if (c.busy) c.failure = err
      else drop(c, err)
    })
    smtp.once('end', () => drop(c))
    smtp.connect(() => {
      if (c.gone) return
      const ready = () => {
        c.ready = true
        pump()
      }
      if (!auth || !smtp.allowsAuth) return ready()
      smtp.login(auth, (err) => (err ? failEarly(err as SmtpError) : ready()))
    })
  }

  function deliver(c: Connection, p: Pending) {
    c.busy = p
    const reused = c.messages > 0
    c.smtp.send(p.envelope, p.raw, (err, info) => {
      if (c.busy !== p) return // aborted or dropped meanwhile
      c.messages++
      if (err) {
        const e = err as SmtpError
        if (reused && !p.requeued && closedUnder(e)) {
          // Most likely the server closed this connection while it was idle: once more, afresh.
          p.requeued = true
          c.busy = null
          queue.unshift(p)
          return drop(c, e)
        }
        p.settle(e)
        // A refused message leaves the session usable after RSET; the connection stays busy till then.
        if ((e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && e.responseCode !== 421)
          return c.smtp.reset((resetErr) => {
            if (c.busy !== p) return
            c.busy = null
            if (resetErr) drop(c)
            else release(c)
          })
        return drop(c, e)
      }
      c.busy = null
      p.settle(null, { response: info.response ?? '', serverMessageId: (info as Accepted).serverMessageId })
      release(c)
    })
  }

  function release(c: Connection) {
    if (c.gone) return
    if (c.messages >= options.maxMessages) {
      c.gone = true
      connections.delete(c)
      c.smtp.quit()
    }
    pump()
  }

  function pump() {
    if (closed) return
    for (const c of connections) {
      if (queue.length === 0) return
      if (c.ready && !c.busy && !c.gone) deliver(c, queue.shift()!)
    }
    // Connections still opening will take some of the queue; open more for the rest.
    let opening = 0
    for (const c of connections) if (!c.ready) opening++
    while (queue.length > opening && connections.size < options.size) {
      open()
      opening++
    }
  }

  return {
    send(envelope: Envelope, raw: Buffer, signal?: AbortSignal): Promise<Accepted> {
      return new Promise<Accepted>((resolve, reject) => {
        if (closed)
          return reject(Object.assign(new Error('The SMTP pool is closed'), { code: 'ECONNECTION' }))
        const p: Pending = {
          envelope,
          raw,
          settled: false,
          requeued: false,
          signal,
          settle(err, info) {
            if (p.settled) return
            p.settled = true
            if (p.onAbort) signal?.removeEventListener('abort', p.onAbort)
            if (err) reject(err)
            else resolve(info!)
          },
        }
        if (signal) {
          if (signal.aborted) return reject(signal.reason)
          p.onAbort = () => {
            const i = queue.indexOf(p)
            if (i >= 0) queue.splice(i, 1)
            p.settle(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
            // The connection carrying it is closed: a stalled server does not keep it.
            for (const c of connections) if (c.busy === p) drop(c)
          }
          signal.addEventListener('abort', p.onAbort, { once: true })
        }
        queue.push(p)
        pump()
      })
    },

    close() {
      closed = true
      for (const p of queue.splice(0))
        p.settle(Object.assign(new Error('The SMTP pool is closed'), { code: 'ECONNECTION' }))
      for (const c of connections) {
        c.gone = true
        // QUIT only on an idle, established session; anything else is cut.
        if (c.busy || !c.ready) c.smtp.close()
        else c.smtp.quit()
      }
      connections.clear()
    },
  }
}
