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
   * Firings are claimed before they run (several processes on one database run each once):
   * `claim` answers whether this process has the job's firing at `slotAt`.
   */
  claimSlotsWith(claim: (name: string, slotAt: number) => Promise<boolean>): void
  /**
   * What the schedule does at each firing: runs the job unless its `due` says there is nothing
   * to do, or another process claimed the firing's slot (`slotAt`, the time the schedule named).
   * Answers whether it ran. Tests call it to drive a firing on the injected clock.
   */
  tick(name: string, slotAt?: number): Promise<boolean>
  start(): void
  stop(): void
}

/**
 * The time the schedule named for a firing happening at `now`: the latest at or before it. Every
 * process computes the same one, however late its timer fired or however its clock is skewed
 * (by less than the schedule's period).
 */
export function firingSlot(schedule: Cron, now: number): number {
  // previousRuns reads its reference to the second and looks strictly before it.
  return schedule.previousRuns(1, new Date(now + 1000))[0]?.getTime() ?? now
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
  let claim: ((name: string, slotAt: number) => Promise<boolean>) | null = null

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

  const tick = async (name: string, slotAt?: number): Promise<boolean> => {
    const due = jobs.get(name)?.def.due
    if (due && !due()) return false
    if (claim && slotAt !== undefined) {
      try {
        if (!(await claim(name, slotAt))) return false
      } catch (err) {
        // The store is away: the firing is skipped rather than run unclaimed; the next one tries.
        log.error('job firing not claimed', { job: name, error: (err as Error).message })
        return false
      }
    }
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
    claimSlotsWith(fn) {
      claim = fn
    },
    runNow: execute,
    tick,
    start() {
      for (const [name, entry] of jobs) {
        entry.cron ??= new Cron(entry.def.schedule, { protect: true }, async (self: Cron) => {
          await tick(name, firingSlot(self, Date.now()))
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
