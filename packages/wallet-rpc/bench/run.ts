import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Runs every `bench/*.bench.ts` (or those whose name contains BENCH_FILTER); each prints its own ratios. */
const folder = fileURLToPath(new URL('./', import.meta.url))
const filter = process.env.BENCH_FILTER ?? ''
const files = readdirSync(folder)
  .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
  .sort()
for (const file of files) {
  console.log(`\n# ${file}`)
  const module = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<void> }
  await module.run()
}
