export type LogFormat = 'json' | 'pretty'
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

export interface Logger {
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
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

/** Structured logs: one JSON object per line (or a readable line in `pretty` mode). */
export function createLogger(format: LogFormat, sink: LogSink = stdoutSink): Logger {
  const write = (level: LogLevel, msg: string, fields?: LogFields) => {
    const time = isoNow()
    if (format === 'json') {
      // Hand-assembled: this runs once per request, and a generic JSON.stringify of a spread
      // object costs a noticeable share of a small request's time. Each member is written as
      // JSON.stringify writes it (test/lib/log.test.ts compares the lines).
      let line = `{"time":"${time}","level":"${level}","msg":${jsonString(msg)}`
      if (fields)
        for (const k in fields) {
          const v = fields[k]
          line += `,${jsonString(k)}:${typeof v === 'string' ? jsonString(v) : typeof v === 'number' && Number.isFinite(v) ? v : v === null ? 'null' : JSON.stringify(v)}`
        }
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
  }
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }
