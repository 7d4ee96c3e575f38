// The advisory lock keys Herald takes on PostgreSQL, in one place so that none is used twice.

/** Migrations at start: two processes starting together do not both migrate. */
export const MIGRATION_LOCK = 7_146_323_001
/** Held by `herald serve` for as long as it runs (serve-lock.ts). */
export const SERVE_LOCK = 7_146_323_002
/** The first start's bootstrap: one default workspace, however many processes start at once. */
export const BOOTSTRAP_LOCK = 7_146_323_003
