// The entry points of the executable, main first. Workers are entry points of their own, each
// started with new Worker(new URL('./<file>', import.meta.url)) by the file named beside it.
// scripts/build.ts and test/helpers/binary.ts build with this list.
export const ENTRY_POINTS = [
  'src/main.ts',
  'src/services/imports/parse-worker.ts', // the CSV import's parser (services/imports/process.ts)
  'src/queue/send-thread.ts', // compose, sign and send mail (queue/send-threads.ts)
  'src/services/templates/render-thread.ts', // template renders (services/templates/render-pool.ts)
  'src/db/checkpoint-thread.ts', // the WAL checkpoint (db/checkpointer.ts)
  'src/db/read-thread.ts', // bounded reads such as segment counts (db/bounded-read.ts)
] as const
