// Builds dist/herald: one executable with migrations and assets embedded.
import { $ } from 'bun'

await $`bun run ${import.meta.dir}/embed-migrations.ts`
await $`bun build --compile --minify --sourcemap=none ${import.meta.dir}/../src/main.ts --outfile ${import.meta.dir}/../dist/herald`
console.log('built dist/herald')
