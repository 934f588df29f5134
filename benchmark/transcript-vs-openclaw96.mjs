// The transcript tables of bench.mjs (one full pass; a 200-turn session; one appended turn)
// with OpenClaw 2026.9.6 beside this package's 2026.9.6 pass, in one process. 2026.9.6 runs on
// Node >= 24.16 only: on an older Node this file runs itself again on the Node 24 binary
// scripts/runtimes.sh caches.
//   node benchmark/transcript-vs-openclaw96.mjs
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { canRunHere, node24, missing, VERSION } from './openclaw-2026.9.6.mjs'

const why = missing()
if (why !== null) {
  console.log(`\nThe transcript pass beside OpenClaw ${VERSION} left out: ${why}`)
} else if (!canRunHere()) {
  const r = spawnSync(node24(), [fileURLToPath(import.meta.url)], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
} else {
  console.log(`\n## The transcript pass beside OpenClaw ${VERSION} (this package in that mode)`)
  process.env.TH_BENCH_OPENCLAW = VERSION
  process.argv[2] = 'transcript'
  await import('./bench.mjs')
}
