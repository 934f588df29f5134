// A session as an agent runs one: before every model call the whole history goes through
// sanitizeSessionHistory, and between calls it only grew. Timed side by side in this process:
// OpenClaw 2026.3.23-2 (benchmark/openclaw.mjs), our full pass, our incremental pass
// (createTranscriptSanitizer, which reuses what it concluded on the previous call).
//
//   - a session of 200 turns growing to 10,000 messages (50 appended per turn): total ms;
//   - an autonomous agent's loop: one user turn, then 500 tool turns (a call after signed
//     thinking, its result), sanitised before each call: total ms;
//   - one turn appending 4 messages to a history of 1,000 and of 10,000: µs per call.
import { createRequire } from 'node:module'
import os from 'node:os'
import { cpuSince } from './cpu-time.mjs'
import { VERSION, loadReference, emptySession } from './transcript-mode.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
// The pass of the release it is timed beside (benchmark/transcript-mode.mjs).
th.setOpenClawVersion(VERSION)
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const oc = await loadReference()
const incremental = typeof th.createTranscriptSanitizer === 'function'

const POLICY = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
// OpenClaw gets its policy resolved once (see bench.mjs: per call it would rescan its plugins).
const OC = oc ? { ...POLICY, policy: oc.fns.resolveTranscriptPolicy(POLICY), sessionManager: emptySession() } : POLICY
const TURNS = 200
const PER_TURN = 50
const full = makeTranscript(TURNS * PER_TURN)
// The arrays the agent passes on each turn, made before timing (the agent has them already).
const turns = Array.from({ length: TURNS }, (_, t) => full.slice(0, (t + 1) * PER_TURN))

// CPU time (benchmark/cpu-time.mjs): the machine is shared, and wall time counts the moments
// another process had the core.
const cpuMs = (c0) => cpuSince(c0) / 1000

/** CPU ms of a whole session (every turn's call, `calls`), the best of `runs` sessions. */
async function session(call, runs = 3, calls = turns) {
  let best = Infinity
  for (let r = 0; r < runs; r++) {
    const run = call()
    const c0 = process.cpuUsage()
    for (const messages of calls) await run(messages)
    best = Math.min(best, cpuMs(c0))
  }
  return best
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
console.log(`\n### A session: ${TURNS} turns growing to ${TURNS * PER_TURN} messages, the whole history sanitised before each (total CPU ms, best of 3)\n`)
console.log('| implementation | total CPU ms | vs OpenClaw |')
console.log('| --- | --- | --- |')
const base = oc ? rows[0][1] : NaN
for (const [name, total] of rows) console.log(`| ${name} | ${total.toFixed(1)} | ${oc ? `${(base / total).toFixed(1)}×` : '—'} |`)
if (!incremental) console.log('\n(no incremental pass in this build: createTranscriptSanitizer is not exported)')

const LOOP = 500
const loop = [{ role: 'user', content: '把仓库里的文件逐个读一遍，然后总结', timestamp: 0 }]
for (let t = 0; t < LOOP; t++) {
  const id = `toolu_${String(t).padStart(6, '0')}`
  loop.push(
    { role: 'assistant', content: [{ type: 'thinking', thinking: '下一个文件', thinkingSignature: 'c2lnbmVk' }, { type: 'toolCall', id, name: 'read', arguments: { path: `src/文件${t}.rs` } }], stopReason: 'toolUse', timestamp: 10 * t + 1 },
    { role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: '文件内容'.repeat(20) }], isError: false, timestamp: 10 * t + 2 },
  )
}
const loopCalls = Array.from({ length: LOOP }, (_, t) => loop.slice(0, 3 + 2 * t))
const loopRows = []
if (oc) loopRows.push(['OpenClaw', await session(() => (messages) => oc.fns.sanitizeSessionHistory({ messages, ...OC }), 1, loopCalls)])
loopRows.push(['transcript-hygiene, full pass', await session(() => (messages) => th.sanitizeSessionHistory({ messages, ...POLICY }), 3, loopCalls)])
if (incremental) {
  loopRows.push(['transcript-hygiene, incremental', await session(() => {
    const s = th.createTranscriptSanitizer(POLICY)
    return (messages) => s.sanitize(messages)
  }, 3, loopCalls)])
}
console.log(`\n### An agent's loop: 1 user turn + ${LOOP} tool turns (${loop.length} messages), sanitised before each call (total CPU ms, best of 3; OpenClaw one run; load average ${os.loadavg()[0].toFixed(2)})\n`)
console.log('| implementation | total CPU ms | vs OpenClaw |')
console.log('| --- | --- | --- |')
for (const [name, total] of loopRows) console.log(`| ${name} | ${total.toFixed(1)} | ${oc ? `${(loopRows[0][1] / total).toFixed(1)}×` : '—'} |`)

/**
 * CPU µs per call for a turn appending `add` messages to a history of `n`, as an agent does it:
 * one array, grown in place, passed whole each turn. Each batch starts from a history of `n`
 * (a fresh `call()`, given it once untimed) and times `steps` turns; the best of `batches`.
 */
async function appendTurn(n, add, call, steps, batches = 5) {
  const all = makeTranscript(n + add * (steps + 1))
  let best = Infinity
  for (let b = 0; b < batches; b++) {
    const history = all.slice(0, n)
    const run = call()
    await run(history)
    const c0 = process.cpuUsage()
    for (let k = 1; k <= steps; k++) {
      for (let j = 0; j < add; j++) history.push(all[history.length])
      await run(history)
    }
    best = Math.min(best, cpuSince(c0) / steps)
  }
  return best
}

const sanitizer = () => {
  const s = th.createTranscriptSanitizer(POLICY)
  return (messages) => s.sanitize(messages)
}

console.log('\n### One turn appending 4 messages (CPU µs per call, best of 5 batches of turns)\n')
console.log('| history | OpenClaw | full pass | incremental | incremental vs OpenClaw |')
console.log('| --- | --- | --- | --- | --- |')
for (const n of [1000, 10000]) {
  const steps = n >= 10000 ? 5 : 20
  const theirs = oc ? await appendTurn(n, 4, () => (messages) => oc.fns.sanitizeSessionHistory({ messages, ...OC }), steps) : null
  const ours = await appendTurn(n, 4, () => (messages) => th.sanitizeSessionHistory({ messages, ...POLICY }), steps)
  const inc = incremental ? await appendTurn(n, 4, sanitizer, 100) : null
  const f = (x) => (x === null ? '—' : x.toFixed(0))
  console.log(`| ${n} | ${f(theirs)} | ${f(ours)} | ${inc === null ? '—' : inc.toFixed(1)} | ${theirs && inc ? `${(theirs / inc).toFixed(0)}×` : '—'} |`)
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
