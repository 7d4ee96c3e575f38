// Builds dist/herald: one executable with migrations and assets embedded.
import { $ } from 'bun'
import { ENTRY_POINTS } from './entry-points'

await $`bun run ${import.meta.dir}/embed-migrations.ts`
await $`bun run ${import.meta.dir}/embed-views.ts`
// Workers are entry points of their own (scripts/entry-points.ts lists them).
const root = `${import.meta.dir}/..`
const entries = ENTRY_POINTS.map((e) => `${root}/${e}`)
await $`bun build --compile --minify --sourcemap=none ${entries} --outfile ${root}/dist/herald`
console.log('built dist/herald')
