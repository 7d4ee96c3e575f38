import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { withActor } from '../../../src/context'
import { migrate } from '../../../src/db/migrate'
import { embeddedMigrations } from '../../../src/db/migrations.generated'
import { portalSessions, users } from '../../../src/db/schema'
import { ServiceError } from '../../../src/errors'
import { type PortalRole, systemActor, userActor } from '../../../src/services/actors/actor'
import { attemptLogin } from '../../../src/services/portal-auth/login'
import {
  changePasswordVerb,
  createUserVerb,
  deleteUserVerb,
  listUsersVerb,
  resetUserPasswordVerb,
  updateAccountVerb,
  updateUserVerb,
} from '../../../src/services/users/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'

// Portal users through their verbs (the portal and `herald users` call these): only owners
// manage users, there is always an owner, emails are unique, members name existing clients,
// passwords are argon2id and a reset ends the user's sessions.

const t = await createTestApp({ env: { HERALD_ADMIN_PASSWORD: 'owner-password-123' } })
const other = await t.client('Other')
const consoleCtx = withActor(t.ctx, systemActor('console'), 'test')
const owner = await t.ctx.db
  .select({ id: users.id })
  .from(users)
  .where(eq(users.email, 'admin@localhost'))
  .then((r) => r[0]!)
const as = (id: string, role: PortalRole, clients: string[] | null = null) =>
  withActor(t.ctx, userActor({ id, role, clients, workspace: clients?.[0] ?? t.defaultClientId }), 'test')

async function refusal(p: Promise<unknown>): Promise<{ code: string; details: unknown }> {
  try {
    await p
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, details: err.details }
    throw err
  }
  throw new Error('expected a refusal')
}

let n = 0
const email = () => `u${++n}@example.com`

describe('users verbs', () => {
  test('the bootstrap user is an owner', async () => {
    const list = await invoke(listUsersVerb, consoleCtx, {})
    expect(list.data.find((u) => u.email === 'admin@localhost')!.role).toBe('owner')
  })

  test('create: argon2id hash, lower-cased email, generated password returned once', async () => {
    const created = await invoke(createUserVerb, consoleCtx, {
      email: 'New.Person@Example.com',
      role: 'admin',
    })
    expect(created.email).toBe('new.person@example.com')
    expect(created.password).toMatch(/^[0-9A-Za-z]{20,}$/)
    const [row] = await t.ctx.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.id, created.id))
    expect(row!.hash).toStartWith('$argon2id$')
    expect((await attemptLogin(t.ctx, 'new.person@example.com', created.password!, '10.9.0.1')).ok).toBe(true)
    const given = await invoke(createUserVerb, consoleCtx, {
      email: email(),
      role: 'viewer',
      password: 'chosen-password-1',
    })
    expect(given.password).toBeNull()
  })

  test.each<[string, Record<string, unknown>, string, string]>([
    ['duplicate email (any case)', { email: 'New.PERSON@example.com', role: 'admin' }, 'CONFLICT', ''],
    ['unknown role', { email: 'x1@example.com', role: 'boss' }, 'VALIDATION_FAILED', 'role'],
    [
      'short password',
      { email: 'x2@example.com', role: 'admin', password: 'short' },
      'VALIDATION_FAILED',
      'password',
    ],
    ['bad email', { email: 'not-an-email', role: 'admin' }, 'VALIDATION_FAILED', 'email'],
    [
      'unknown time zone',
      { email: 'x3@example.com', role: 'admin', timezone: 'Mars/Base' },
      'VALIDATION_FAILED',
      'timezone',
    ],
    [
      'member with an unknown client',
      { email: 'x4@example.com', role: 'member', clients: ['01a20a7f-0000-7000-8000-000000000000'] },
      'VALIDATION_FAILED',
      'clients',
    ],
  ])('create refuses %s', async (_name, input, code, field) => {
    const r = await refusal(invoke(createUserVerb, consoleCtx, input))
    expect(r.code).toBe(code)
    if (field) expect((r.details as { field: string }[]).map((d) => d.field)).toContain(field)
  })

  test.each<[PortalRole, string]>([
    ['admin', 'FORBIDDEN'],
    ['member', 'FORBIDDEN'],
    ['viewer', 'FORBIDDEN'],
  ])('a portal %s cannot create, change or delete users', async (role, code) => {
    const actor = await invoke(createUserVerb, consoleCtx, {
      email: email(),
      role,
      clients: role === 'member' ? [t.defaultClientId] : undefined,
    })
    const ctx = as(actor.id, role, role === 'member' ? [t.defaultClientId] : null)
    expect((await refusal(invoke(createUserVerb, ctx, { email: email(), role: 'viewer' }))).code).toBe(code)
    expect((await refusal(invoke(updateUserVerb, ctx, { id: owner.id, role: 'viewer' }))).code).toBe(code)
    expect((await refusal(invoke(deleteUserVerb, ctx, { id: owner.id }))).code).toBe(code)
    expect((await refusal(invoke(resetUserPasswordVerb, ctx, { id: owner.id }))).code).toBe(code)
  })

  test('an owner manages users: role change, member clients, delete', async () => {
    const ctx = as(owner.id, 'owner')
    const u = await invoke(createUserVerb, ctx, { email: email(), role: 'member', clients: [other] })
    expect(u.clients).toEqual([other])
    const moved = await invoke(updateUserVerb, ctx, { id: u.id, clients: [t.defaultClientId, other] })
    expect(new Set(moved.clients)).toEqual(new Set([t.defaultClientId, other]))
    const promoted = await invoke(updateUserVerb, ctx, { id: u.id, role: 'admin' })
    expect(promoted.clients).toBeNull()
    expect((await invoke(deleteUserVerb, ctx, { id: u.id })).deleted).toBe(true)
    expect((await refusal(invoke(deleteUserVerb, ctx, { id: u.id }))).code).toBe('NOT_FOUND')
  })

  test('there is always an owner: the last cannot be demoted or deleted; nobody deletes themselves', async () => {
    const ctx = as(owner.id, 'owner')
    expect((await refusal(invoke(updateUserVerb, ctx, { id: owner.id, role: 'admin' }))).code).toBe(
      'INVALID_STATE',
    )
    expect((await refusal(invoke(deleteUserVerb, consoleCtx, { id: owner.id }))).code).toBe('INVALID_STATE')
    expect((await refusal(invoke(deleteUserVerb, ctx, { id: owner.id }))).code).toBe('FORBIDDEN')
    const second = await invoke(createUserVerb, ctx, { email: email(), role: 'owner' })
    await invoke(updateUserVerb, ctx, { id: second.id, role: 'admin' })
    await invoke(updateUserVerb, ctx, { id: second.id, role: 'owner' })
    await invoke(deleteUserVerb, ctx, { id: second.id })
  })

  test('reset-password ends the sessions of the user and the old password stops working', async () => {
    const u = await invoke(createUserVerb, consoleCtx, {
      email: email(),
      role: 'viewer',
      password: 'first-password-1',
    })
    await t.ctx.db
      .insert(portalSessions)
      .values({ tokenHash: 'h1', userId: u.id, csrfToken: 'c', createdAt: 0, lastSeenAt: 0 })
    const reset = await invoke(resetUserPasswordVerb, consoleCtx, { id: u.id })
    expect(reset.password).toBeTruthy()
    expect(await t.ctx.db.select().from(portalSessions).where(eq(portalSessions.userId, u.id))).toEqual([])
    expect((await attemptLogin(t.ctx, u.email, 'first-password-1', '10.9.0.2')).ok).toBe(false)
    expect((await attemptLogin(t.ctx, u.email, reset.password!, '10.9.0.2')).ok).toBe(true)
  })

  test('own account: a viewer may change its time zone and password; an API key has no account', async () => {
    const u = await invoke(createUserVerb, consoleCtx, {
      email: email(),
      role: 'viewer',
      password: 'viewer-password-1',
    })
    const ctx = as(u.id, 'viewer')
    expect((await invoke(updateAccountVerb, ctx, { timezone: 'America/New_York' })).timezone).toBe(
      'America/New_York',
    )
    await invoke(changePasswordVerb, ctx, {
      current_password: 'viewer-password-1',
      new_password: 'viewer-password-2',
    })
    expect((await refusal(invoke(updateAccountVerb, consoleCtx, { timezone: 'UTC' }))).code).toBe('FORBIDDEN')
  })
})

describe('migration 0011', () => {
  test('a portal user from before roles becomes an owner with time zone UTC', async () => {
    const sqlite = new Database(':memory:')
    await sqlite.run('PRAGMA foreign_keys = ON')
    const before = embeddedMigrations.findIndex((m) => m.tag.startsWith('0011_'))
    await migrate(sqlite, embeddedMigrations.slice(0, before))
    await sqlite.run(
      "INSERT INTO users (id, email, password_hash, role, created_at) VALUES ('u1', 'old@example.com', 'h', 'admin', 1)",
    )
    await migrate(sqlite)
    expect(await sqlite.query('SELECT role, timezone FROM users').all()).toEqual([
      { role: 'owner', timezone: 'UTC' },
    ])
    expect(await sqlite.query('PRAGMA foreign_key_check').all()).toEqual([])
    sqlite.close()
  })
})
