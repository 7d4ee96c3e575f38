import { createReadStream } from 'node:fs'
import { parse } from 'csv-parse'
import { type ColumnTarget, mapHeader } from './columns'
import { type Cell, type FromParser, IMPORT_BATCH, ROW_CELLS, type ToParser } from './parse-protocol'
import { readRow, rowProblem } from './rows'

// The import's parse worker (a thread of the server; an entry point of the build, see
// scripts/build.ts): streams the spooled CSV, reads each row by the header and checks it as the
// JSON API would (phones parsed and validated by libphonenumber-js, the costly part), and hands
// the writer thread batches of rows ready to insert. It runs at most `ahead` batches in front
// of the writer, so a fast parse never piles a file up in memory.

declare const self: Worker

let credits = 0
let resume: (() => void) | null = null

async function send(cells: Cell[]): Promise<void> {
  while (credits === 0)
    await new Promise<void>((r) => {
      resume = r
    })
  credits--
  self.postMessage({ type: 'batch', cells: inKeyOrder(cells) } satisfies FromParser)
  // The batch just sent and the parse garbage of its rows are dead now: a full collection here
  // keeps this thread's heap near one batch. Left to itself the heap grows several batches
  // wide, ~35 MB of the 300 MB a million-row import may use, for no gain in speed.
  Bun.gc(true)
}

/**
 * The batch with its refused rows first (in file order), then its good rows by lower-cased
 * email, file order among equals (a stable sort, so a repeated email's first row still wins).
 * The unique (client_no, lower(email)) index is the writer's main cost: in key order its pages
 * are each visited once per transaction instead of at random, evicted and read again (a third
 * less I/O at a million rows). The order is only a hint to the index; the writer sorts
 * its errors back into file order.
 */
function inKeyOrder(cells: Cell[]): Cell[] {
  const refused: number[] = []
  const good: { at: number; key: string }[] = []
  for (let k = 0; k < cells.length; k += ROW_CELLS)
    if (cells[k + 1] !== null) refused.push(k)
    else good.push({ at: k, key: (cells[k + 2] as string).toLowerCase() })
  good.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const out: Cell[] = []
  for (const k of refused) for (let i = 0; i < ROW_CELLS; i++) out.push(cells[k + i] as Cell)
  for (const { at } of good) for (let i = 0; i < ROW_CELLS; i++) out.push(cells[at + i] as Cell)
  return out
}

async function run(file: string, delimiter: string, skip: number): Promise<void> {
  const parser = createReadStream(file).pipe(
    parse({
      bom: true,
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
    }),
  )
  let columns: ColumnTarget[] | null = null
  let recordNo = 0
  let cells: Cell[] = []
  for await (const record of parser as AsyncIterable<string[]>) {
    recordNo++
    if (!columns) {
      columns = mapHeader(record)
      if (!columns.some((c) => c.kind === 'field' && c.field === 'email'))
        throw new Error('the header row has no email column (expected a column named email)')
      continue
    }
    // Rows before `skip` were written by a run that crashed: the record count is the row number.
    if (recordNo - 1 <= skip) continue
    const row = readRow(record, columns)
    const problem = rowProblem(row)
    // One row is ROW_CELLS cells (parse-protocol.ts): a flat array clones fast.
    cells.push(
      recordNo,
      problem,
      row.email ?? null,
      row.first_name ?? null,
      row.last_name ?? null,
      row.company ?? null,
      row.phone ?? null,
      row.status ?? null,
      row.timezone ?? null,
      problem ? null : JSON.stringify(row.custom),
    )
    if (cells.length >= IMPORT_BATCH * ROW_CELLS) {
      await send(cells)
      cells = []
    }
  }
  if (!columns) throw new Error('the file has no header row')
  if (cells.length) await send(cells)
}

self.onmessage = (event: MessageEvent<ToParser>) => {
  const m = event.data
  if (m.type === 'more') {
    credits++
    resume?.()
    resume = null
    return
  }
  credits = m.ahead
  run(m.file, m.delimiter, m.skip).then(
    () => self.postMessage({ type: 'end' } satisfies FromParser),
    (err: Error) => self.postMessage({ type: 'fail', message: err.message } satisfies FromParser),
  )
}
