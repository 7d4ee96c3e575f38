import { Cron } from 'croner'
import type { Logger } from '../lib/log'

export interface JobDefinition {
  name: string
  /** Cron pattern (croner syntax, seconds optional). */
  schedule: string
  description: string
  run: () => void | Promise<void>
}

export interface JobInfo {
  name: string
  schedule: string
  description: string
  next_run_at: string | null
  last_run_at: string | null
  last_error: string | null
}

export interface JobRegistry {
  register(job: JobDefinition): void
  list(): JobInfo[]
  /** Runs a job now, whatever its schedule (operators, tests). */
  runNow(name: string): Promise<void>
  start(): void
  stop(): void
}

/** Every scheduled job is registered by name so it can be listed and run on demand. */
export function createJobRegistry(log: Logger): JobRegistry {
  const jobs = new Map<string, { def: JobDefinition; cron?: Cron; lastRun?: number; lastError?: string }>()

  const execute = async (name: string) => {
    const entry = jobs.get(name)
    if (!entry) throw new Error(`unknown job ${name}`)
    entry.lastRun = Date.now()
    try {
      await entry.def.run()
      entry.lastError = undefined
    } catch (err) {
      entry.lastError = (err as Error).message
      log.error('job failed', { job: name, error: entry.lastError })
    }
  }

  return {
    register(def) {
      if (jobs.has(def.name)) throw new Error(`job ${def.name} registered twice`)
      jobs.set(def.name, { def })
    },
    list() {
      return [...jobs.values()].map(({ def, cron, lastRun, lastError }) => ({
        name: def.name,
        schedule: def.schedule,
        description: def.description,
        next_run_at: cron?.nextRun()?.toISOString() ?? null,
        last_run_at: lastRun ? new Date(lastRun).toISOString() : null,
        last_error: lastError ?? null,
      }))
    },
    runNow: execute,
    start() {
      for (const [name, entry] of jobs) {
        entry.cron ??= new Cron(entry.def.schedule, { protect: true }, () => execute(name))
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
