// Where one incremental call's time goes: a turn appending 4 messages to a history of 1,000 and
// of 10,000, with timers around each step of the call (js/transcript-session.js, js/run.js).
// A diagnostic for whoever tunes the incremental pass, not part of `npm run bench`. Besides the
// wall-clock medians it prints the process's CPU time per call (getrusage: garbage collection
// included, time another process had the CPU excluded), steadier on a shared machine.
import { createRequire } from 'node:module'
import os from 'node:os'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const native = require('../binding.js')
const codec = require('../js/codec.js')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))

const POLICY = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
const now = () => process.hrtime.bigint()
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]

// Timers: each wrapped function adds its time to a bucket.
const buckets = {}
function wrap(obj, key, name) {
  const f = obj[key]
  obj[key] = function (...a) {
    const t0 = now()
    try {
      return f.apply(this, a)
    } finally {
      buckets[name].push(Number(now() - t0) / 1000)
    }
  }
  buckets[name] = []
}
wrap(native, 'runTranscriptSession', 'native call')
wrap(codec, 'encode', 'encode')
wrap(codec, 'apply', 'apply')

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
for (const n of [1000, 10000]) {
  const steps = 400
  const all = makeTranscript(n + 4 * (steps + 1))
  const history = all.slice(0, n)
  const s = th.createTranscriptSanitizer(POLICY)
  s.sanitize(history)
  for (const b of Object.values(buckets)) b.length = 0
  const total = []
  const c0 = process.cpuUsage()
  for (let k = 0; k < steps; k++) {
    for (let j = 0; j < 4; j++) history.push(all[history.length])
    const t0 = now()
    s.sanitize(history)
    total.push(Number(now() - t0) / 1000)
  }
  const c = process.cpuUsage(c0)
  const row = [`cpu per call ${((c.user + c.system) / steps).toFixed(1)}`, `total ${median(total).toFixed(1)}`]
  let known = 0
  for (const [k, b] of Object.entries(buckets)) {
    const m = median(b.slice(-steps))
    known += m
    row.push(`${k} ${m.toFixed(1)}`)
  }
  row.push(`rest ${(median(total) - known).toFixed(1)}`)
  console.log(`${n}: ${row.join(' | ')} µs (medians of ${steps})`)
}
