// Builds dist/herald: one executable with migrations and assets embedded.
import { $ } from 'bun'

await $`bun run ${import.meta.dir}/embed-migrations.ts`
await $`bun run ${import.meta.dir}/embed-views.ts`
// Workers are entry points of their own: the CSV import's parse worker (src/services/imports/process.ts
// starts it with new Worker(new URL('./parse-worker.ts', import.meta.url))) and the send threads
// (src/queue/send-threads.ts starts src/queue/send-thread.ts) and the WAL checkpoint thread
// (src/db/checkpointer.ts starts src/db/checkpoint-thread.ts) and the render threads
// (src/services/templates/render-pool.ts starts src/services/templates/render-thread.ts).
// test/helpers/binary.ts builds with
// the same list.
const src = `${import.meta.dir}/../src`
await $`bun build --compile --minify --sourcemap=none ${src}/main.ts ${src}/services/imports/parse-worker.ts ${src}/queue/send-thread.ts ${src}/services/templates/render-thread.ts ${src}/db/checkpoint-thread.ts --outfile ${import.meta.dir}/../dist/herald`
console.log('built dist/herald')
