import { sql } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { BOOTSTRAP_LOCK } from './postgres/lock-keys'
import { rawRows } from './raw'

/**
 * Called first inside the transaction of a one-time piece of work (the first start's bootstrap)
 * that several processes may start at once: it waits until no other holds it, so the work reads
 * what the first one wrote. On PostgreSQL an advisory lock held until the transaction ends; on
 * SQLite the transaction (BEGIN IMMEDIATE) already admits one writer at a time.
 */
export async function lockForBootstrap(db: Db): Promise<void> {
  if (DIALECT === 'postgres') await rawRows(db, sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK}) AS held`)
}
