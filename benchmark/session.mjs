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

/** µs per call for a turn appending `add` messages to a history of `n`. */
async function appendTurn(n, add, call, steps = 100) {
  const all = makeTranscript(n + add * (steps + 1))
  const arrays = Array.from({ length: steps + 1 }, (_, k) => all.slice(0, n + add * k))
  const run = call()
  await run(arrays[0])
  const t0 = process.hrtime.bigint()
  for (let k = 1; k <= steps; k++) await run(arrays[k])
  return (ms(t0) * 1000) / steps
}

console.log('\n### One turn appending 4 messages (µs per call, mean of 100 turns)\n')
console.log('| history | OpenClaw | full pass | incremental | incremental vs OpenClaw |')
console.log('| --- | --- | --- | --- | --- |')
for (const n of [1000, 10000]) {
  const steps = n >= 10000 ? 30 : 100
  const theirs = oc ? await appendTurn(n, 4, () => (messages) => oc.fns.sanitizeSessionHistory({ messages, ...OC }), steps) : NaN
  const ours = await appendTurn(n, 4, () => (messages) => th.sanitizeSessionHistory({ messages, ...POLICY }), steps)
  const inc = incremental
    ? await appendTurn(n, 4, () => {
        const s = th.createTranscriptSanitizer(POLICY)
        return (messages) => s.sanitize(messages)
      }, 200)
    : NaN
  const f = (x) => (Number.isNaN(x) ? '—' : x.toFixed(0))
  console.log(`| ${n} | ${f(theirs)} | ${f(ours)} | ${incremental ? inc.toFixed(1) : '—'} | ${oc && incremental ? `${(theirs / inc).toFixed(0)}×` : '—'} |`)
}
