import { describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { type Actor, withActor } from '../../../src/context'
import { postgresTransactionsOf } from '../../../src/db/postgres/handle'
import { campaigns } from '../../../src/db/schema'
import { ServiceError } from '../../../src/errors'
import { ANONYMOUS, keyActor, userActor } from '../../../src/services/actors/actor'
import {
  createCampaignVerb,
  getCampaignVerb,
  launchCampaignVerb,
  listCampaignsVerb,
} from '../../../src/services/campaigns/verbs'
import { defineVerb } from '../../../src/services/verbs/define'
import { invoke, invokeNow } from '../../../src/services/verbs/invoke'
import { strict } from '../../../src/services/verbs/schemas'
import { createTestApp } from '../../helpers/app'

/** Whether a transaction is open on the context's connection (on PostgreSQL: its store's). */
const inOpenTransaction = (sqlite: Parameters<typeof postgresTransactionsOf>[0]): boolean => {
  const pg = postgresTransactionsOf(sqlite)
  return pg ? pg.current() !== undefined : sqlite.inTransaction
}

// One verb, every door: the same verb called through `invoke` with an API-key actor and with a
// portal-user actor applies the same scope, validation, tenancy and transaction rules, with no
// HTTP anywhere.

const app = await createTestApp()
const acme = await app.client('Acme')
const globex = await app.client('Globex')

const key = (scopes: string[], clientId: string | null = acme): Actor =>
  keyActor({ id: `key-${scopes.join('+')}`, clientId, scopes, tier: 'unlimited' })
const user = (role: 'owner' | 'admin' | 'member' | 'viewer', workspace: string | null = acme) =>
  userActor({ id: `user-${role}`, role, clients: role === 'member' ? [acme] : null, workspace })

const ctxOf = (actor: Actor) => withActor(app.ctx, actor, `test-${actor.id}`)

/** Runs a verb and returns what a door would see: the result, or the typed error. */
async function attempt(
  fn: () => Promise<unknown>,
): Promise<{ ok: unknown } | { code: string; details: unknown }> {
  try {
    return { ok: await fn() }
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err
    return { code: err.code, details: err.details }
  }
}

const writers: [string, Actor][] = [
  ['API key with campaigns:write', key(['campaigns:write'])],
  ['portal member of the workspace', user('member')],
  ['portal admin in the workspace', user('admin')],
]

describe('the same verb, a key actor and a portal-user actor', () => {
  test.each(writers)('%s creates in its own client and reads it back', async (_, actor) => {
    const created = (await invoke(createCampaignVerb, ctxOf(actor), { name: 'Spring' })) as {
      id: string
      client_id: string
    }
    expect(created.client_id).toBe(acme)
    const read = (await invoke(getCampaignVerb, ctxOf(actor), { id: created.id })) as { id: string }
    expect(read.id).toBe(created.id)
  })

  const refusals: [string, Actor, unknown][] = [
    ['key without the scope', key(['campaigns:read']), { required_scope: 'campaigns:write' }],
    ['portal viewer', user('viewer'), { required_scope: 'campaigns:write' }],
    ['portal member outside its workspaces', user('member', globex), { role: 'member' }],
    ['portal member with no workspace chosen', user('member', null), { role: 'member' }],
  ]
  test.each(refusals)('%s is refused with 403 FORBIDDEN before anything runs', async (_, actor, details) => {
    const before = (await app.ctx.db.select().from(campaigns)).length
    const r = await attempt(async () => await invoke(createCampaignVerb, ctxOf(actor), { name: 'Nope' }))
    expect(r).toEqual({ code: 'FORBIDDEN', details })
    expect((await app.ctx.db.select().from(campaigns)).length).toBe(before)
  })

  test('a viewer still reads', async () => {
    const r = await attempt(async () => await invoke(listCampaignsVerb, ctxOf(user('viewer')), { limit: 1 }))
    expect(r).toHaveProperty('ok')
  })

  test.each([
    ['key', key(['campaigns:write'])],
    ['portal member', user('member')],
  ])('%s: every failing member is listed, with the same messages', async (_, actor) => {
    const r = await attempt(
      async () =>
        await invoke(createCampaignVerb, ctxOf(actor), { name: '', channel: 'pigeon', colour: 'red' }),
    )
    expect(r).toMatchObject({ code: 'VALIDATION_FAILED' })
    const fields = ((r as { details: { field: string }[] }).details ?? []).map((d) => d.field).sort()
    expect(fields).toEqual(['channel', 'colour', 'name'])
  })

  test.each([
    ['key', key(['campaigns:launch'])],
    ['portal member', user('member')],
  ])('%s: a record id that is neither a UUID nor a prefixed id names no record (404)', async (_, actor) => {
    expect(
      await attempt(async () => await invoke(launchCampaignVerb, ctxOf(actor), { id: 'x', confirm: true })),
    ).toEqual({
      code: 'NOT_FOUND',
      details: undefined,
    })
  })

  test.each([
    ['key', key(['admin:*'])],
    ['portal owner', user('owner')],
  ])('%s: another client’s record is 404, never 403', async (_, actor) => {
    const theirs = (await invoke(createCampaignVerb, ctxOf(key(['admin:*'], globex)), {
      name: 'Theirs',
    })) as {
      id: string
    }
    expect(
      await attempt(async () => await invoke(getCampaignVerb, ctxOf(actor), { id: theirs.id })),
    ).toMatchObject({
      code: 'NOT_FOUND',
    })
  })
})

describe('the transaction belongs to invoke', () => {
  const Input = t.Object({ name: t.String(), fail: t.Boolean() }, strict)
  /** Writes through another verb, then fails: nothing of it may remain. */
  const writeThenFail = defineVerb({
    name: 'test.write-then-fail',
    scope: 'campaigns:write',
    input: Input,
    mutates: true,
    run: async (ctx, input) => {
      await ctx.db
        .insert(campaigns)
        .values({ id: Bun.randomUUIDv7(), clientId: acme, name: input.name, createdAt: 1, updatedAt: 1 })
      if (input.fail) throw new ServiceError('CONFLICT', 'changed my mind')
      return { written: true }
    },
  })
  const count = async (name: string) =>
    (await app.ctx.db.select().from(campaigns)).filter((c) => c.name === name).length

  test.each([
    ['key', key(['campaigns:write'])],
    ['portal member', user('member')],
  ])('%s: a verb that fails after writing leaves nothing behind', async (_, actor) => {
    const name = `rollback-${actor.kind}`
    expect(
      await attempt(async () => await invoke(writeThenFail, ctxOf(actor), { name, fail: true })),
    ).toMatchObject({
      code: 'CONFLICT',
    })
    expect(await count(name)).toBe(0)
    await invoke(writeThenFail, ctxOf(actor), { name, fail: false })
    expect(await count(name)).toBe(1)
  })

  test('an async verb does its I/O in prepare, outside the transaction, and its writes in run', async () => {
    const seen: string[] = []
    const verb = defineVerb({
      name: 'test.prepare-then-write',
      scope: 'campaigns:write',
      input: Input,
      mutates: true,
      prepare: async (ctx) => {
        await Bun.sleep(1) // I/O: other work may run here; no transaction is open
        seen.push(inOpenTransaction(ctx.sqlite) ? 'prepare in transaction' : 'prepare outside')
        return 'looked-up'
      },
      run: (ctx, input, prepared: string) => {
        seen.push(inOpenTransaction(ctx.sqlite) ? `run in transaction with ${prepared}` : 'run outside')
        return writeThenFail.run(ctx, input, undefined, {})
      },
    })
    await invoke(verb, ctxOf(user('member')), { name: 'async-verb', fail: false })
    expect(seen).toEqual(['prepare outside', 'run in transaction with looked-up'])
    expect(await count('async-verb')).toBe(1)
  })

  test('a verb whose run awaits keeps its transaction: others wait, a throw after the await rolls it back', async () => {
    const slow = defineVerb({
      name: 'test.slow-run',
      scope: 'campaigns:write',
      input: Input,
      mutates: true,
      run: async (ctx, input) => {
        await writeThenFail.run(ctx, { ...input, fail: false }, undefined, {})
        await Bun.sleep(5)
        if (input.fail) throw new ServiceError('CONFLICT', 'failed after an await')
        return { written: true }
      },
    })
    const ctx = ctxOf(key(['campaigns:write']))
    const failing: Promise<unknown> = invoke(slow, ctx, { name: 'awaited', fail: true })
    // Started while the first holds the writer: it waits, then commits on its own.
    const passing: Promise<unknown> = invoke(slow, ctx, { name: 'awaited-ok', fail: false })
    await expect(failing).rejects.toThrow('failed after an await')
    expect(await passing).toEqual({ written: true })
    expect(await count('awaited')).toBe(0)
    expect(await count('awaited-ok')).toBe(1)
  })

  test('a verb called inside another verb’s transaction joins it (a savepoint)', async () => {
    const outer = defineVerb({
      name: 'test.outer',
      scope: 'campaigns:write',
      input: t.Object({}, strict),
      mutates: true,
      run: async (ctx) => {
        await writeThenFail.run(ctx, { name: 'nested', fail: false }, undefined, {})
        throw new ServiceError('CONFLICT', 'outer fails after the inner verb wrote')
      },
    })
    expect(await attempt(async () => await invoke(outer, ctxOf(key(['campaigns:write'])), {}))).toMatchObject(
      {
        code: 'CONFLICT',
      },
    )
    expect(await count('nested')).toBe(0)
  })
})

describe('edges of invoke', () => {
  test('no credential: only public verbs answer; anything else is 401', async () => {
    expect(
      await attempt(async () => await invoke(getCampaignVerb, ctxOf(ANONYMOUS), { id: Bun.randomUUIDv7() })),
    ).toMatchObject({
      code: 'UNAUTHORIZED',
    })
  })

  test('invokeNow refuses a verb that does I/O first (it must go through invoke)', () => {
    const withIo = defineVerb({
      name: 'test.with-io',
      scope: 'any',
      input: t.Object({}, strict),
      mutates: false,
      prepare: async () => 'x',
      run: () => 'y',
    })
    expect(async () => await invokeNow(withIo as never, ctxOf(key(['admin:*'])), {})).toThrow('use invoke')
  })
})
