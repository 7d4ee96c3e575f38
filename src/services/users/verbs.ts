import type { FieldError } from '../../lib/validate'
import { isTimeZone } from '../contacts/normalize'
import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { changePassword, currentPasswordHash, getAccount, updateAccount } from './account'
import {
  ChangePasswordInput,
  CreateUserInput,
  ListUsersInput,
  ResetPasswordInput,
  UpdateAccountInput,
  UpdateUserInput,
  UserRef,
} from './inputs'
import { generatePassword, hashPassword, verifyPassword } from './passwords'
import { createUser, deleteUser, getUser, listUsers, resetPassword, updateUser } from './records'

// Portal users. Managing them needs admin:* and, for a portal user, the owner role
// (checked in ./records.ts). Passwords are hashed in `prepare`: argon2id is slow on purpose and
// must not hold the write lock.

const timezoneCheck = (input: { timezone?: string }): FieldError[] =>
  input.timezone !== undefined && !isTimeZone(input.timezone)
    ? [{ field: 'timezone', message: 'must be an IANA time zone such as Europe/Paris' }]
    : []

export const listUsersVerb = defineVerb({
  name: 'users.list',
  scope: 'admin:*',
  input: ListUsersInput,
  mutates: false,
  run: async (ctx, input) => await listUsers(ctx, input),
})

export const getUserVerb = defineVerb({
  name: 'users.get',
  scope: 'admin:*',
  input: UserRef,
  mutates: false,
  run: async (ctx, { id }) => await getUser(ctx, id),
})

/**
 * The password a verb sets: the one given, or a generated one (returned once to the caller). Hashed
 * in `prepare`, outside the transaction: the hash is deliberately slow.
 */
async function passwordToSet(given: string | undefined) {
  const generated = given === undefined ? generatePassword() : null
  return { generated, hash: await hashPassword(given ?? generated!) }
}

/** Returns the password once when it was generated. */
export const createUserVerb = defineVerb({
  name: 'users.create',
  scope: 'admin:*',
  input: CreateUserInput,
  mutates: true,
  secrets: ['password'],
  check: timezoneCheck,
  prepare: (_ctx, input) => passwordToSet(input.password),
  run: async (ctx, input, prepared) => ({
    ...(await createUser(ctx, input, prepared.hash)),
    password: prepared.generated,
  }),
})

export const updateUserVerb = defineVerb({
  name: 'users.update',
  scope: 'admin:*',
  input: UpdateUserInput,
  mutates: true,
  run: async (ctx, input) => await updateUser(ctx, input),
})

/** Sets (or generates, returned once) a new password and ends the user's sessions. */
export const resetUserPasswordVerb = defineVerb({
  name: 'users.reset-password',
  scope: 'admin:*',
  input: ResetPasswordInput,
  mutates: true,
  secrets: ['password'],
  prepare: (_ctx, input) => passwordToSet(input.password),
  run: async (ctx, { id }, prepared) => ({
    ...(await resetPassword(ctx, id, prepared.hash)),
    password: prepared.generated,
  }),
})

export const deleteUserVerb = defineVerb({
  name: 'users.delete',
  scope: 'admin:*',
  input: UserRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteUser(ctx, id),
})

export const getAccountVerb = defineVerb({
  name: 'account.get',
  scope: 'any',
  input: NoInput,
  mutates: false,
  ownAccount: true,
  run: async (ctx) => await getAccount(ctx),
})

export const changePasswordVerb = defineVerb({
  name: 'account.change-password',
  scope: 'any',
  input: ChangePasswordInput,
  mutates: true,
  ownAccount: true,
  prepare: async (ctx, input) => ({
    currentOk: await verifyPassword(input.current_password, await currentPasswordHash(ctx)),
    hash: await hashPassword(input.new_password),
  }),
  run: async (ctx, _input, prepared) => await changePassword(ctx, prepared),
})

export const updateAccountVerb = defineVerb({
  name: 'account.update',
  scope: 'any',
  input: UpdateAccountInput,
  mutates: true,
  ownAccount: true,
  check: timezoneCheck,
  run: async (ctx, { timezone }) => await updateAccount(ctx, timezone),
})
