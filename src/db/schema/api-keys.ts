import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { API_KEY_TIERS } from '../../lib/enums'
import { clients } from './clients'

/** Only the SHA-256 of a key is stored; `prefix` (first 12 characters) is for display. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').references(() => clients.id),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    tier: text('tier', { enum: API_KEY_TIERS }).notNull().default('standard'),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    /** Minted by an agent registration's claim: an ordinary key, marked. */
    agent: integer('agent', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash), index('api_keys_client_idx').on(t.clientId)],
)

export type ApiKeyRow = typeof apiKeys.$inferSelect
