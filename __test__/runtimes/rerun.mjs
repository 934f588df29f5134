// The whole node suite again, on the runtime that runs this script (`npm run test:runtimes` runs it
// with Node 24, the release OpenClaw needs). The specs listed in ONCE test what does not depend on the
// JavaScript runtime (type declarations, packaging, our rules against an oracle, crash-safety of file
// writes, which all happen in Rust or in tsc); they already ran on the machine's Node in `npm test`,
// so a second run would only spend CI time. Every other spec runs here in full. TH_RERUN=1 tells a
// spec that this is the second run, for the few single tests that skip for the same reason.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIR = fileURLToPath(new URL('..', import.meta.url))

/** Spec file → why it runs once, on the first run. */
export const ONCE = {
  'types.spec.mjs': 'tsc checks the declarations; no runtime is involved',
  'consumer.spec.mjs': 'npm pack and tsc; loading the packed package on each runtime is the smoke suite',
  'openclaw-parity.spec.mjs': 'our rules against OpenClaw 2026.3.23 as an oracle: the same Rust code on any runtime',
  'openclaw96-parity.spec.mjs': 'our scrubbers against OpenClaw 2026.9.6 as an oracle: the same Rust code on any runtime',
  'openclaw96-history.spec.mjs': 'our transcript rules against OpenClaw 2026.9.6 as an oracle: the same Rust code on any runtime',
  'session-crash.spec.mjs': 'children killed in the middle of a file write; the write is Rust code',
}

for (const f of Object.keys(ONCE)) if (!existsSync(join(DIR, f))) throw new Error(`ONCE names ${f}, which is not in __test__/`)
const files = readdirSync(DIR).filter((f) => f.endsWith('.spec.mjs') && !(f in ONCE)).sort()
for (const f of Object.keys(ONCE)) console.log(`# ${f} runs once, on the first run: ${ONCE[f]}`)
const r = spawnSync(process.execPath, ['--test', ...files.map((f) => join(DIR, f))], { stdio: 'inherit', env: { ...process.env, TH_RERUN: '1' } })
process.exit(r.status ?? 1)
