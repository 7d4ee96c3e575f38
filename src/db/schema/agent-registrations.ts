import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { AGENT_IDENTITY_TYPES, AGENT_REGISTRATION_STATUSES } from '../../lib/enums'
import { apiKeys } from './api-keys'
import { clients } from './clients'

/**
 * Programmatic agent registrations (/agent/auth/register → claim). The handle an agent holds
 * (`reg_…`, 32 random base62 characters) is stored as its SHA-256 only, like API keys; `id` is
 * the record id the portal uses. A handle lives 24 hours (`expires_at`).
 */
export const agentRegistrations = sqliteTable(
  'agent_registrations',
  {
    id: text('id').primaryKey(),
    handleHash: text('handle_hash').notNull(),
    status: text('status', { enum: AGENT_REGISTRATION_STATUSES }).notNull(),
    clientName: text('client_name').notNull(),
    identityType: text('identity_type', { enum: AGENT_IDENTITY_TYPES }).notNull(),
    requestedScopes: text('requested_scopes', { mode: 'json' }).$type<string[]>().notNull(),
    /** Set on approval: the requested scopes as trimmed by the operator (or the auto-approval). */
    approvedScopes: text('approved_scopes', { mode: 'json' }).$type<string[]>(),
    /** The workspace asked for at registration; the approved one once approved. */
    clientId: text('client_id').references(() => clients.id),
    /** The verified assertion's issuer and subject (identity_assertion, once claimed). */
    subject: text('subject'),
    keyId: text('key_id').references(() => apiKeys.id),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('agent_registrations_handle_idx').on(t.handleHash),
    index('agent_registrations_status_idx').on(t.status, t.expiresAt),
  ],
)

export type AgentRegistrationRow = typeof agentRegistrations.$inferSelect
