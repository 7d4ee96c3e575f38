import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

export const PORTAL_ROLES = ['owner', 'admin', 'member', 'viewer'] as const

/** Portal users. Passwords are hashed with Bun.password (argon2id). */
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: PORTAL_ROLES }).notNull().default('member'),
    /** IANA time zone the portal shows dates in. */
    timezone: text('timezone').notNull().default('UTC'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
)

export type UserRow = typeof users.$inferSelect

/** The clients (workspaces) a `member` may switch to; other roles ignore it. */
export const userClients = sqliteTable(
  'user_clients',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId] }), index('user_clients_client_idx').on(t.clientId)],
)

/**
 * Portal sessions. The cookie carries a random token; only its SHA-256 is stored, so a copy of
 * the database cannot be replayed as a login. The session holds the CSRF token, the chosen
 * workspace and a one-shot flash message.
 */
export const portalSessions = sqliteTable(
  'portal_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    workspaceId: text('workspace_id'),
    flash: text('flash'),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [index('portal_sessions_user_idx').on(t.userId)],
)

export type PortalSessionRow = typeof portalSessions.$inferSelect

/** Failed portal logins, counted per email and per IP over a sliding 15 minutes. */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('login_failures_email_idx').on(t.email, t.at), index('login_failures_ip_idx').on(t.ip, t.at)],
)

/** A lock on an email or an IP (`email:…` / `ip:…`) until a time, set by the 10th failure. */
export const loginLocks = sqliteTable('login_locks', {
  subject: text('subject').primaryKey(),
  until: integer('until').notNull(),
})
