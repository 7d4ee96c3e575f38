import type { UserRow } from '../../db/schema'
import { iso } from '../../lib/time'

/** Never includes the password hash. */
export function presentUser(row: UserRow, clients: readonly string[]) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    timezone: row.timezone,
    clients: row.role === 'member' ? [...clients] : null,
    created_at: iso(row.createdAt),
  }
}

export type UserView = ReturnType<typeof presentUser>
