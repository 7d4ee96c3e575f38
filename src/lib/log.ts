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

/** Structured logs: one JSON object per line (or a readable line in `pretty` mode). */
export function createLogger(format: LogFormat, sink: LogSink = stdoutSink): Logger {
  const write = (level: LogLevel, msg: string, fields?: LogFields) => {
    const time = new Date().toISOString()
    if (format === 'json') {
      // Hand-assembled: this runs once per request, and a generic JSON.stringify of a spread
      // object costs a noticeable share of a small request's time.
      let line = `{"time":"${time}","level":"${level}","msg":${JSON.stringify(msg)}`
      if (fields)
        for (const k in fields) {
          const v = fields[k]
          line += `,${JSON.stringify(k)}:${typeof v === 'number' && Number.isFinite(v) ? v : v === null ? 'null' : JSON.stringify(v)}`
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
