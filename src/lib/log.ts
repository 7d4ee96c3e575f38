export type LogFormat = 'json' | 'pretty'
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

export interface Logger {
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /**
   * The access line, exactly as `info('request', line)` writes it; a logger may write it
   * faster, knowing its members (createLogger does: it is written once per request).
   */
  access?(line: AccessLine): void
}

/** The members of the access line (src/http/rest/envelope.ts), in their order. */
export type AccessLine = {
  method: string
  path: string
  status: number
  duration_ms: number
  request_id: string
  key_id: string | null
}

export type LogSink = (line: string) => void

/**
 * Lines are buffered and written at most every 50 ms (or at 64 KiB): one write per request
 * would cost a system call each. `flushLogs()` is called on shutdown.
 */
let buffered = ''
let timer: ReturnType<typeof setTimeout> | null = null
export function flushLogs(): void {
  if (timer) clearTimeout(timer)
  timer = null
  if (buffered) {
    const out = buffered
    buffered = ''
    process.stdout.write(out)
  }
}
const stdoutSink: LogSink = (line) => {
  buffered += line + '\n'
  if (buffered.length > 65_536) flushLogs()
  else timer ??= setTimeout(flushLogs, 50)
}

// The line's time, formatted once per millisecond: at tens of thousands of requests a second
// most lines share their millisecond with the one before (the same text new Date().toISOString()
// gives, since both read Date.now()).
let isoMs = Number.NaN
let isoText = ''
function isoNow(): string {
  const ms = Date.now()
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString()
    isoMs = ms
  }
  return isoText
}

/**
 * What JSON.stringify makes of a string: a string without a character it escapes (`"`, `\`,
 * C0 controls, and surrogates, which it escapes when unpaired) is only quoted. The test is
 * cheaper than the call for the short, plain strings of a log line.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are the point
const JSON_ESCAPED = /["\\\x00-\x1f\ud800-\udfff]/
const jsonString = (s: string): string => (JSON_ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`)

/** A field's value as the JSON writer puts it (a non-finite number as null, as JSON.stringify does). */
const jsonValue = (v: unknown): string | number =>
  typeof v === 'string'
    ? jsonString(v)
    : typeof v === 'number' && Number.isFinite(v)
      ? v
      : v === null
        ? 'null'
        : JSON.stringify(v)

/** Structured logs: one JSON object per line (or a readable line in `pretty` mode). */
export function createLogger(format: LogFormat, sink: LogSink = stdoutSink): Logger {
  const write = (level: LogLevel, msg: string, fields?: LogFields) => {
    const time = isoNow()
    if (format === 'json') {
      // Hand-assembled: this runs once per request, and a generic JSON.stringify of a spread
      // object costs a noticeable share of a small request's time. Each member is written as
      // JSON.stringify writes it (test/lib/log.test.ts compares the lines).
      let line = `{"time":"${time}","level":"${level}","msg":${jsonString(msg)}`
      if (fields) for (const k in fields) line += `,${jsonString(k)}:${jsonValue(fields[k])}`
      sink(`${line}}`)
      return
    }
    const extra = fields
      ? Object.entries(fields)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' ')
      : ''
    sink(`${time} ${level.toUpperCase().padEnd(5)} ${msg}${extra ? ` ${extra}` : ''}`)
  }
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    // The access line's keys are known: written in one template, the same text as write() gives.
    access:
      format === 'json'
        ? (a) =>
            sink(
              `{"time":"${isoNow()}","level":"info","msg":"request","method":${jsonValue(a.method)},"path":${jsonValue(a.path)},"status":${jsonValue(a.status)},"duration_ms":${jsonValue(a.duration_ms)},"request_id":${jsonValue(a.request_id)},"key_id":${jsonValue(a.key_id)}}`,
            )
        : (a) => write('info', 'request', a),
  }
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }
