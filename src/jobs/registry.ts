import { Cron } from 'croner'
import type { Logger } from '../lib/log'

export interface JobDefinition {
  name: string
  /** Cron pattern (croner syntax, seconds optional). */
  schedule: string
  description: string
  run: () => void | Promise<void>
  /**
   * For a frequent job: whether a scheduled firing has anything to do (memory only; no database
   * work). When false the firing is skipped: not run, not recorded. "Run now" always runs.
   */
  due?: () => boolean
}

export interface JobInfo {
  name: string
  schedule: string
  description: string
  next_run_at: string | null
  last_run_at: string | null
  /** null = never run, or running now for the first time. */
  last_outcome: 'ok' | 'failed' | null
  last_duration_ms: number | null
  last_error: string | null
  running: boolean
}

/** A run that ended, as the registry timed it. */
export interface JobRun {
  name: string
  startedAt: number
  outcome: 'ok' | 'failed'
  durationMs: number
  error: string | null
}

export interface JobRegistry {
  register(job: JobDefinition): void
  /** Called after every run (scheduled or run now) — to record it durably. */
  onRunEnd(listener: (run: JobRun) => void | Promise<void>): void
  list(): JobInfo[]
  /** Runs a job now, whatever its schedule (operators, tests). */
  runNow(name: string): Promise<void>
  /**
   * What the schedule does at each firing: runs the job unless its `due` says there is nothing
   * to do. Answers whether it ran. Tests call it to drive a firing on the injected clock.
   */
  tick(name: string): Promise<boolean>
  start(): void
  stop(): void
}

/** Every scheduled job is registered by name so it can be listed and run on demand. */
export function createJobRegistry(log: Logger): JobRegistry {
  // The last run is kept in memory (since this process started): what the jobs page shows.
  const jobs = new Map<
    string,
    {
      def: JobDefinition
      cron?: Cron
      lastRun?: number
      lastDurationMs?: number
      lastOutcome?: 'ok' | 'failed'
      lastError?: string
      running?: boolean
    }
  >()

  const listeners: ((run: JobRun) => void | Promise<void>)[] = []

  const execute = async (name: string) => {
    const entry = jobs.get(name)
    if (!entry) throw new Error(`unknown job ${name}`)
    const started = performance.now()
    entry.lastRun = Date.now()
    entry.running = true
    try {
      await entry.def.run()
      entry.lastError = undefined
      entry.lastOutcome = 'ok'
    } catch (err) {
      entry.lastError = (err as Error).message
      entry.lastOutcome = 'failed'
      log.error('job failed', { job: name, error: entry.lastError })
    } finally {
      entry.running = false
      entry.lastDurationMs = Math.round((performance.now() - started) * 10) / 10
    }
    const run: JobRun = {
      name,
      startedAt: entry.lastRun,
      outcome: entry.lastOutcome,
      durationMs: entry.lastDurationMs,
      error: entry.lastError ?? null,
    }
    for (const listener of listeners) {
      try {
        await listener(run)
      } catch (err) {
        log.error('job run not recorded', { job: name, error: (err as Error).message })
      }
    }
  }

  const tick = async (name: string): Promise<boolean> => {
    const due = jobs.get(name)?.def.due
    if (due && !due()) return false
    await execute(name)
    return true
  }

  return {
    register(def) {
      if (jobs.has(def.name)) throw new Error(`job ${def.name} registered twice`)
      jobs.set(def.name, { def })
    },
    list() {
      return [...jobs.values()].map(
        ({ def, cron, lastRun, lastError, lastOutcome, lastDurationMs, running }) => ({
          name: def.name,
          schedule: def.schedule,
          description: def.description,
          next_run_at: cron?.nextRun()?.toISOString() ?? null,
          last_run_at: lastRun ? new Date(lastRun).toISOString() : null,
          last_outcome: lastOutcome ?? null,
          last_duration_ms: lastDurationMs ?? null,
          last_error: lastError ?? null,
          running: running ?? false,
        }),
      )
    },
    onRunEnd(listener) {
      listeners.push(listener)
    },
    runNow: execute,
    tick,
    start() {
      for (const [name, entry] of jobs) {
        entry.cron ??= new Cron(entry.def.schedule, { protect: true }, async () => {
          await tick(name)
        })
      }
    },
    stop() {
      for (const entry of jobs.values()) {
        entry.cron?.stop()
        entry.cron = undefined
      }
    },
  }
}
