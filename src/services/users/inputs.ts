import { type Static, Type as t } from '@sinclair/typebox'
import { PORTAL_ROLES } from '../../db/schema/users'
import { idRef, pageQueryMembers, RecordId, strict } from '../verbs/schemas'

// What the portal-user verbs take: one schema per input, shared by the portal and the CLI.

export const RoleName = t.Union(PORTAL_ROLES.map((r) => t.Literal(r)))
export const Email = t.String({ format: 'email', maxLength: 254 })
/** Long enough to resist guessing; argon2id makes each guess slow. */
export const Password = t.String({ minLength: 10, maxLength: 200 })
export const TimeZone = t.String({ minLength: 1, maxLength: 64 })

export const ListUsersInput = t.Object({ ...pageQueryMembers }, strict)
export type ListUsersInput = Static<typeof ListUsersInput>

export const CreateUserInput = t.Object(
  {
    email: Email,
    /** Omitted: one is generated and returned once. */
    password: t.Optional(Password),
    role: RoleName,
    /** The workspaces a member may use (ignored for the other roles). */
    clients: t.Optional(t.Array(idRef('client'), { maxItems: 500, uniqueItems: true })),
    timezone: t.Optional(TimeZone),
  },
  strict,
)
export type CreateUserInput = Static<typeof CreateUserInput>

export const UpdateUserInput = t.Object(
  {
    id: RecordId,
    role: t.Optional(RoleName),
    clients: t.Optional(t.Array(idRef('client'), { maxItems: 500, uniqueItems: true })),
  },
  strict,
)
export type UpdateUserInput = Static<typeof UpdateUserInput>

export const ResetPasswordInput = t.Object({ id: RecordId, password: t.Optional(Password) }, strict)
export type ResetPasswordInput = Static<typeof ResetPasswordInput>

export const UserRef = t.Object({ id: RecordId }, strict)

/** The signed-in user's own account. */
export const ChangePasswordInput = t.Object(
  { current_password: t.String({ maxLength: 200 }), new_password: Password },
  strict,
)
export type ChangePasswordInput = Static<typeof ChangePasswordInput>

export const UpdateAccountInput = t.Object({ timezone: TimeZone }, strict)
