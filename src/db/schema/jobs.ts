import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The last run of each named job (src/jobs/), written by jobs.record-run when a run ends — in
 * `herald serve` on its schedule or "Run now", and in `herald jobs run` — so the portal's jobs
 * page shows it across restarts and processes.
 */
export const jobRuns = sqliteTable('job_runs', {
  name: text('name').primaryKey(),
  lastRunAt: integer('last_run_at').notNull(),
  outcome: text('outcome', { enum: ['ok', 'failed'] }).notNull(),
  durationMs: integer('duration_ms').notNull(),
  error: text('error'),
})

export type JobRunRow = typeof jobRuns.$inferSelect

/**
 * The last firing slot (its scheduled time) each job's schedule claimed: of several processes on
 * one database, the one that moves it forward runs that firing and the others skip it.
 */
export const jobSlots = sqliteTable('job_slots', {
  name: text('name').primaryKey(),
  slotAt: integer('slot_at').notNull(),
})
