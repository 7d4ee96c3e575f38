import type { ConnectionOptions } from 'node:tls'
import { dkimSign } from './dkim-signer'
import { composeEmail } from './mime'
import { SMTP_CAPABILITIES } from './smtp-capabilities'
import { createSmtpPool } from './smtp-pool'
import {
  type ChannelProvider,
  type Outgoing,
  ProviderError,
  type SendOptions,
  type SendResult,
} from './types'

// Email through a pool of nodemailer SMTP connections to HERALD_SMTP_URL (smtp-pool.ts):
// `smtp://` upgrades with STARTTLS when the server offers it, `smtps://` is TLS from the first
// byte. The message is composed and DKIM-signed here (see mime.ts and dkim-signer.ts for why not
// by nodemailer) and handed to the pool as raw bytes with its envelope.

export interface SmtpProviderOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`. */
  url: string
  /** Connections kept open (HERALD_SMTP_POOL). */
  pool: number
  /** tls.connect options, e.g. `{ rejectUnauthorized: false }` or a test CA. */
  tls?: ConnectionOptions
  /** Messages per connection before it is replaced (default 1000; a reconnect costs far more than a message). */
  maxMessages?: number
  /**
   * Give up on a connection attempt, and on a server's greeting after it, after this long
   * (HERALD_SMTP_CONNECT_TIMEOUT_MS, default 10 s).
   */
  connectionTimeout?: number
  /**
   * Silence on an open connection (a reply that never comes) before it is closed and the
   * message fails retryably (HERALD_SMTP_SOCKET_TIMEOUT_MS, default 20 s). The pool then opens
   * a fresh connection for the next message.
   */
  socketTimeout?: number
}

/** Real inboxes: a verified, DKIM-signed From; delivered means the relay said 250. */
export { SMTP_CAPABILITIES }

/**
 * The pool settings, as nodemailer transport options: the provider's pool takes the same
 * numbers, and the benchmark's raw nodemailer blast runs on the same terms.
 */
export function smtpTransportOptions(options: SmtpProviderOptions) {
  return {
    pool: true as const,
    url: options.url,
    maxConnections: options.pool,
    maxMessages: options.maxMessages ?? 1000,
    connectionTimeout: options.connectionTimeout ?? 10_000,
    greetingTimeout: options.connectionTimeout ?? 10_000,
    socketTimeout: options.socketTimeout ?? 20_000,
    tls: options.tls,
  }
}

export function createSmtpProvider(options: SmtpProviderOptions): ChannelProvider {
  const settings = smtpTransportOptions(options)
  const pool = createSmtpPool({ ...settings, size: settings.maxConnections })
  return {
    name: 'smtp',
    capabilities: SMTP_CAPABILITIES,
    async send(message: Outgoing, sendOptions?: SendOptions): Promise<SendResult> {
      if (message.channel !== 'email') throw new ProviderError(`smtp cannot send ${message.channel}`, false)
      let raw: Buffer
      try {
        raw = composeEmail(message)
        if (message.dkim) raw = await dkimSign(raw, message.dkim)
      } catch (err) {
        throw new ProviderError(`cannot build the message: ${(err as Error).message}`, false)
      }
      try {
        // The queue's deadline (the signal) drops the message from the pool's queue, or closes
        // the connection delivering it (a stalled one), so the pool does not keep it.
        const info = await pool.send(
          { from: message.envelopeFrom, to: [message.to] },
          raw,
          sendOptions?.signal,
        )
        return {
          providerMessageId: info.serverMessageId ?? queueId(info.response) ?? info.response ?? null,
          delivered: true,
        }
      } catch (err) {
        throw toProviderError(err as SmtpError)
      }
    },
    async close() {
      pool.close()
    },
  }
}

// Amazon SES answers `250 Ok <message id>`; its bounce and complaint notifications name the
// message by that id (`mail.messageId`).
const SES_ID =
  /^250 Ok (0[0-9a-f]{15}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d{6})\s*$/i

/** The queue id in a 250 reply: Postfix `queued as X`, Exim `id=X`, SES's message id; null if none. */
export function queueId(response: string | undefined): string | null {
  const r = response ?? ''
  const m = /\bqueued as ([^\s;,]+)/i.exec(r) ?? /\bid=([^\s;,]+)/i.exec(r) ?? SES_ID.exec(r)
  return m?.[1] ?? null
}

interface SmtpError extends Error {
  code?: string
  responseCode?: number
  response?: string
}

// Failures of the message itself, found before anything was sent: retrying cannot help.
const PERMANENT_LOCAL = new Set(['EENVELOPE', 'EMESSAGE', 'ECONFIG', 'EMAXRECIPIENTS'])

/**
 * 4xx replies, connection failures and timeouts may succeed later; 5xx replies are final
 * (except 503, a command out of sequence on this session, which says nothing about the
 * message). A refused login is the operator's to fix, so it is retried too.
 */
export function toProviderError(err: SmtpError): ProviderError {
  const code = err.responseCode
  const text = (err.response ?? err.message).trim()
  if (code !== undefined && code >= 400 && err.code !== 'EAUTH')
    return new ProviderError(`SMTP ${text}`, code < 500 || code === 503, code)
  const retryable = !(err.code !== undefined && PERMANENT_LOCAL.has(err.code) && code === undefined)
  return new ProviderError(`SMTP ${err.code ?? 'error'}: ${text}`, retryable, code ?? err.code)
}
