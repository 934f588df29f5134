// A session as an agent runs one: before every model call the whole history goes through
// sanitizeSessionHistory, and between calls it only grew. Timed side by side in this process:
// OpenClaw 2026.3.23-2 (benchmark/openclaw.mjs), our full pass, our incremental pass
// (createTranscriptSanitizer, which reuses what it concluded on the previous call).
//
//   - a session of 200 turns growing to 10,000 messages (50 appended per turn): total ms;
//   - one turn appending 4 messages to a history of 1,000 and of 10,000: µs per call.
import { createRequire } from 'node:module'
import { loadOpenClaw } from './openclaw.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const oc = await loadOpenClaw()
const incremental = typeof th.createTranscriptSanitizer === 'function'

const POLICY = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
// OpenClaw gets its policy resolved once (see bench.mjs: per call it would rescan its plugins).
const OC = oc ? { ...POLICY, policy: oc.fns.resolveTranscriptPolicy(POLICY) } : POLICY
const TURNS = 200
const PER_TURN = 50
const full = makeTranscript(TURNS * PER_TURN)
// The arrays the agent passes on each turn, made before timing (the agent has them already).
const turns = Array.from({ length: TURNS }, (_, t) => full.slice(0, (t + 1) * PER_TURN))

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]

async function session(call, runs = 3) {
  const totals = []
  for (let r = 0; r < runs; r++) {
    const run = call()
    const t0 = process.hrtime.bigint()
    for (const messages of turns) await run(messages)
    totals.push(ms(t0))
  }
  return median(totals)
}

const rows = []
if (oc) rows.push(['OpenClaw', await session(() => (messages) => oc.fns.sanitizeSessionHistory({ messages, ...OC }))])
rows.push(['transcript-hygiene, full pass', await session(() => (messages) => th.sanitizeSessionHistory({ messages, ...POLICY }))])
if (incremental) {
  rows.push(['transcript-hygiene, incremental', await session(() => {
    const s = th.createTranscriptSanitizer(POLICY)
    return (messages) => s.sanitize(messages)
  })])
}
console.log(`\n### A session: ${TURNS} turns growing to ${TURNS * PER_TURN} messages, the whole history sanitised before each (total ms, median of 3)\n`)
console.log('| implementation | total ms | vs OpenClaw |')
console.log('| --- | --- | --- |')
const base = oc ? rows[0][1] : NaN
for (const [name, total] of rows) console.log(`| ${name} | ${total.toFixed(1)} | ${oc ? `${(base / total).toFixed(1)}×` : '—'} |`)
if (!incremental) console.log('\n(no incremental pass in this build: createTranscriptSanitizer is not exported)')

/**
 * µs per call for a turn appending `add` messages to a history of `n`, as an agent does it: one
 * array, grown in place, passed whole each turn. Returns the median and the mean of `steps` turns.
 */
async function appendTurn(n, add, call, steps = 100) {
  const all = makeTranscript(n + add * (steps + 1))
  const history = all.slice(0, n)
  const run = call()
  await run(history)
  const times = []
  for (let k = 1; k <= steps; k++) {
    for (let j = 0; j < add; j++) history.push(all[history.length])
    const t0 = process.hrtime.bigint()
    await run(history)
    times.push(ms(t0) * 1000)
  }
  return { median: median(times), mean: times.reduce((a, b) => a + b, 0) / times.length }
}

const sanitizer = () => {
  const s = th.createTranscriptSanitizer(POLICY)
  return (messages) => s.sanitize(messages)
}

console.log('\n### One turn appending 4 messages (µs per call: median and mean of the turns)\n')
console.log('| history | OpenClaw | full pass | incremental (median) | incremental (mean) | incremental vs OpenClaw |')
console.log('| --- | --- | --- | --- | --- | --- |')
for (const n of [1000, 10000]) {
  const steps = n >= 10000 ? 30 : 100
  const theirs = oc ? await appendTurn(n, 4, () => (messages) => oc.fns.sanitizeSessionHistory({ messages, ...OC }), steps) : null
  const ours = await appendTurn(n, 4, () => (messages) => th.sanitizeSessionHistory({ messages, ...POLICY }), steps)
  const inc = incremental ? await appendTurn(n, 4, sanitizer, 400) : null
  const f = (x) => (x === null ? '—' : x.median.toFixed(0))
  const g = (x, k) => (x === null ? '—' : x[k].toFixed(1))
  console.log(`| ${n} | ${f(theirs)} | ${f(ours)} | ${g(inc, 'median')} | ${g(inc, 'mean')} | ${theirs && inc ? `${(theirs.median / inc.median).toFixed(0)}×` : '—'} |`)
}

// What one remembered session holds: its two arrays of references (the last input and output,
// 8 bytes a slot) and, in Rust, the ids of its stable prefix.
if (incremental) {
  const { Session } = require('../js/transcript-session.js')
  console.log('\n### Memory of one remembered session\n')
  console.log('| history | JS arrays (bytes) | Rust prefix (bytes) | total per message |')
  console.log('| --- | --- | --- | --- |')
  for (const n of [1000, 10000]) {
    const s = new Session(JSON.stringify(POLICY))
    s.sanitize(makeTranscript(n), POLICY, null, 0)
    const js = (s.seen.length + s.out.length) * 8
    const rust = s.native.heapBytes()
    console.log(`| ${n} | ${js} | ${rust} | ${((js + rust) / n).toFixed(0)} B |`)
  }
}
