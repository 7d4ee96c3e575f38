import { expect, test } from 'bun:test'
import type { AppContext } from '../../src/context'
import { DIALECT } from '../../src/db/dialect'
import type { Outbox } from '../../src/db/outbox'
import type { MessageRow } from '../../src/db/schema'
import { createGate } from '../../src/lib/gate'
import { createBatchProcessor } from '../../src/queue/batch'
import type { Finished } from '../../src/queue/outcome'
import type { SendPlan } from '../../src/queue/plan'
import type { RecipientStep } from '../../src/queue/recipient'
import { sourcesOf } from '../../src/queue/sources'
import type { MessageSource } from '../../src/queue/sources/types'

// A batch writes its outcomes in groups while it sends (src/queue/batch.ts). On PostgreSQL a
// group's write takes round trips and waits its turn behind the process's other transactions:
// there a batch writes one group at a time, the outcomes finishing meanwhile going in the next,
// so its writes never pile up in front of a pause (or anything else) waiting for its turn.
// Sends of 2 ms, 8 at once; writes of 60 ms, longer than the 25 ms between groups.

const ROWS = 400
const rows = Array.from(
  { length: ROWS },
  (_, i) =>
    ({
      seq: i + 1,
      id: `m${i + 1}`,
      contactId: 'c',
      channel: 'email',
      nextAttemptAt: 300_000,
    }) as unknown as MessageRow,
)
const source = {
  kind: 'transactional',
  owns: () => true,
  planKey: () => 'plan',
  plan: async () => ({ channel: 'email' }) as unknown as SendPlan,
} as unknown as MessageSource
const app = { clock: { now: () => 0 } } as unknown as AppContext
const outbox = { contactsByIds: async () => [] } as unknown as Outbox
const prepare: RecipientStep = async () => async () => {
  await Bun.sleep(2)
  return { kind: 'skipped', reason: 'test' }
}

test('every outcome is written once; on PostgreSQL one group of the batch at a time', async () => {
  const written: number[] = []
  let writing = 0
  let mostAtOnce = 0
  const processBatch = createBatchProcessor(app, {
    outbox,
    sources: sourcesOf([source]),
    checksFor: async () => ({ suppressed: () => false }),
    prepare,
    lateMs: 30_000,
    writeOutcomes: async (group: readonly Finished[]) => {
      mostAtOnce = Math.max(mostAtOnce, ++writing)
      await Bun.sleep(60)
      written.push(...group.map((f) => f.message.seq))
      writing--
    },
  })
  const gate = createGate(8)
  await processBatch(rows, { gate: () => gate, started: () => {} })
  expect(written.sort((a, b) => a - b)).toEqual(rows.map((r) => r.seq))
  if (DIALECT === 'postgres') expect(mostAtOnce).toBe(1)
})
