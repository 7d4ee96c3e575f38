import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Portal users. Passwords are hashed with Bun.password (argon2id). */
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['admin'] })
      .notNull()
      .default('admin'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
)
