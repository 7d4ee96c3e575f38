import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { DOMAIN_STATUSES } from '../../lib/enums'
import { clients } from './clients'

export type CheckOutcome = 'pass' | 'fail' | 'error'
export interface CheckResult {
  outcome: CheckOutcome
  message: string
  /** The record text(s) found at the name, joined, for the user to compare. */
  found: string[]
}
export interface DomainChecks {
  checked_at: number
  dkim: CheckResult
  spf: CheckResult
  dmarc: CheckResult
}

/**
 * A sending domain. The DKIM private key is stored encrypted (AES-256-GCM with the instance
 * secret); the public key is the base64 SPKI that goes into the DNS record's `p=` tag.
 * `status`: pending until DKIM and SPF pass once; verified; broken when a later check failed.
 */
export const domains = sqliteTable(
  'domains',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    domain: text('domain').notNull(),
    dkimSelector: text('dkim_selector').notNull(),
    dkimPublicKey: text('dkim_public_key').notNull(),
    dkimPrivateKey: text('dkim_private_key').notNull(),
    dkimVerified: integer('dkim_verified', { mode: 'boolean' }).notNull().default(false),
    spfVerified: integer('spf_verified', { mode: 'boolean' }).notNull().default(false),
    dmarcVerified: integer('dmarc_verified', { mode: 'boolean' }).notNull().default(false),
    status: text('status', { enum: DOMAIN_STATUSES }).notNull().default('pending'),
    checks: text('checks', { mode: 'json' }).$type<DomainChecks>(),
    verifiedAt: integer('verified_at'),
    /**
     * Whether its mail is under the warm-up cap. Set from HERALD_WARMUP when the domain is added;
     * null (domains added before the flag existed) follows HERALD_WARMUP.
     */
    warmup: integer('warmup', { mode: 'boolean' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('domains_client_domain_idx').on(t.clientId, t.domain),
    index('domains_domain_idx').on(t.domain),
    index('domains_client_idx').on(t.clientId, t.id),
    index('domains_status_idx').on(t.status),
  ],
)

export type DomainRow = typeof domains.$inferSelect
