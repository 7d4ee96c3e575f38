import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { loadConfig } from '../../../src/config'
import { withActor } from '../../../src/context'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { inTransaction } from '../../../src/db/transaction'
import { silentLogger } from '../../../src/lib/log'
import { systemActor } from '../../../src/services/actors/actor'
import { createContactVerb } from '../../../src/services/contacts/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { BASE, createTestApp } from '../../helpers/app'
import { untilOneWaitsOnLock } from '../../helpers/pg-database'
import { scratchDirs } from '../../helpers/temp-dir'

const tempDir = scratchDirs()

// Two processes on one PostgreSQL create the same contact at once. Each checks the email is
// free, then inserts; the one that commits second hits the unique key. Its verb runs again,
// finds the other's contact and answers 409 as it would have one after the other, not 500.
// (On SQLite one process writes at a time: there is no race to lose.)

const t = await createTestApp()

test.if(DIALECT === 'postgres')(
  'a create that lost a race to another process answers 409, not 500',
  async () => {
    const other = await createAppContext(
      loadConfig(
        { data: tempDir('herald-other-') },
        { HERALD_PUBLIC_URL: BASE, HERALD_DATABASE_URL: t.ctx.config.databaseUrl! },
      ),
      { log: silentLogger },
    )
    const watch = new SQL({ url: t.ctx.config.databaseUrl!, max: 1 })
    afterAll(async () => {
      await watch.close()
      await other.store.close()
    })
    const as = withActor(other, systemActor('test'), 'test')
    let answer: Promise<{ status: number; body: { error: { code: string } } }> | undefined
    // The other process has inserted the contact and not committed yet when this one asks.
    await inTransaction(other.sqlite, async () => {
      await invoke(createContactVerb, as, { client_id: t.defaultClientId, email: 'same@example.com' })
      answer = t.call('POST', `/api/v1/contacts?client_id=${t.defaultClientId}`, {
        body: { email: 'same@example.com' },
      })
      await untilOneWaitsOnLock(watch, 'the second insert waits on the unique key')
    })
    const res = await answer!
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('CONFLICT')
  },
)
