// The advisory lock keys Herald takes on PostgreSQL, in one place so that none is used twice.

/** Migrations at start: two processes starting together do not both migrate. */
export const MIGRATION_LOCK = 7_146_323_001
// 7_146_323_002 was the serve lock of releases that warned about a second process: not reused.
// 7_146_323_003 was the first start's bootstrap lock, now FIRST_START_LOCK below.
/**
 * A campaign's audience copy, one process at a time (with the campaign id's hash): a key space
 * of two 32-bit keys, apart from the single 64-bit keys above.
 */
export const AUDIENCE_COPY_LOCK = 71_463_004
/** A flow sender's daily limit (client, sender, day): its count is read, then added to. */
export const FLOW_DAILY_LOCK = 71_463_005
/** The instance's first OAuth signing key: made once, however many processes issue a token at once. */
export const OAUTH_KEY_LOCK = 71_463_006
/** The first start's bootstrap: one default workspace, however many processes start at once. */
export const FIRST_START_LOCK = 71_463_007
