// Two builds of this package side by side in one process, with OpenClaw 2026.3.23-2 beside them:
// `node benchmark/compare-builds.mjs <dir> [2026.9.6]`, where <dir> holds the other build (its
// index.js, binding.js, js/ and .node file, e.g. an earlier commit's, built). With `2026.9.6` both
// builds run in that OpenClaw mode and OpenClaw 2026.9.6 runs beside them (it needs Node >= 24.16:
// run this with the Node 24 binary scripts/runtimes.sh caches; without it the column is empty); with
// `2026.3.23`, that mode beside OpenClaw 2026.3.23-2. Name the mode when the two builds' defaults
// differ (a build from before the default became 2026.9.6). A fourth argument names a policy of
// benchmark/bench.mjs (`anthropic`, `openai`, `google`, `mistral`): the full pass only, with that
// policy (beside 2026.9.6 every side is given the policy 2026.9.6 resolves, as bench.mjs does).
// On a shared machine only
// figures measured in one process, interleaved, can be compared: the load moves every column.
//
//   - the full pass (sanitizeSessionHistory without a session) at 1,000 and 10,000 messages;
//   - a turn appending 4 messages (createTranscriptSanitizer), the caches warm (turn after turn)
//     and cold (a buffer larger than the caches walked before each turn, as an agent's other work
//     does between two model calls; the walk is not timed).
// CPU µs per call (benchmark/cpu-time.mjs), best of batches; each row takes the better of
// `ROUNDS` rounds, the two builds alternating.
//   - a turn whose messages are all new objects with the same content (as OpenClaw 2026.9.6's
//     runner rebuilds them from its store each attempt): the content-keyed path where a build has it;
//   - the same warm turn with the two builds' calls interleaved one by one (each turn appends to
//     both histories, then calls both, the order swapped every turn): the median wall µs per
//     call. Under load the batch rows above move by ±30% between two runs of identical code (a
//     batch's mean carries every turn a neighbour disturbed); this row read 0.99–1.02 for
//     identical code at load 12.
import { createRequire } from 'node:module'
import os from 'node:os'
import { resolve } from 'node:path'
import { cpuSince, cpuTime, cpuTimeAsync, flushCaches } from './cpu-time.mjs'
import { loadOpenClaw } from './openclaw.mjs'
import { canRunHere } from './openclaw-2026.9.6.mjs'

const require = createRequire(import.meta.url)
const other = process.argv[2]
if (!other) {
  console.error('usage: node benchmark/compare-builds.mjs <directory of the other build>')
  process.exit(2)
}
const builds = { other: require(resolve(other, 'index.js')), this: require('../index.js') }
// Both builds run OpenClaw 2026.3.23's pass, beside that release (the package default became
// 2026.9.6, whose pass has no incremental form): the same work in every column.
for (const th of Object.values(builds)) th.setOpenClawVersion?.('2026.3.23')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const version = process.argv[3]
const oc96 = version === '2026.9.6'
const oc = oc96 && !canRunHere() ? null : await loadOpenClaw(oc96 ? { version, names: ['sanitizeSessionHistory', 'resolveTranscriptPolicy'] } : undefined)
const NAMED = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
}
const named = process.argv[4]
if (named !== undefined && !NAMED[named]) {
  console.error(`unknown policy ${named}: one of ${Object.keys(NAMED).join(', ')}`)
  process.exit(2)
}
const OC_POLICY = NAMED[named ?? 'anthropic']
const POLICY = { ...OC_POLICY, ...(version ? { openclawVersion: version } : {}) }
// A named policy beside 2026.9.6: every side gets the policy 2026.9.6 resolves.
if (named && oc96 && oc) POLICY.policy = oc.fns.resolveTranscriptPolicy(OC_POLICY)
// 2026.9.6 is given an empty session (our builds get none), which it reads through getBranch.
const ocSession = oc96 ? { sessionManager: { getEntries: () => [], getBranch: () => [], appendCustomEntry() {} } } : {}
const ROUNDS = 3
const load = () => os.loadavg()[0].toFixed(2)

const clock = cpuTime(() => cpuSince(process.cpuUsage()))

/** New message and block objects with the same content, as a runner that rebuilds them from its store hands. */
const rebuild = (history) => history.map((m) => ({ ...m, content: Array.isArray(m.content) ? m.content.map((b) => ({ ...b })) : m.content }))

/**
 * CPU µs per turn appending 4 messages to a history of `n`: best of `batches` batches of `steps`.
 * `rebuilt`: every turn's messages are new objects (the rebuild is not timed).
 */
function turn(th, n, cold, steps = 100, batches = 5, rebuilt = false) {
  const all = makeTranscript(n + 4 * (steps + 1))
  let bestPer = Infinity
  for (let b = 0; b < batches; b++) {
    const history = all.slice(0, n)
    const s = th.createTranscriptSanitizer(POLICY)
    s.sanitize(history)
    // The first call with new objects takes the full pass (the session keeps skeletons after it).
    if (rebuilt) s.sanitize(rebuild(history))
    let spent = 0
    for (let k = 0; k < steps; k++) {
      for (let j = 0; j < 4; j++) history.push(all[history.length])
      const input = rebuilt ? rebuild(history) : history
      if (cold) flushCaches()
      const c = process.cpuUsage()
      s.sanitize(input)
      spent += cpuSince(c) - clock
    }
    bestPer = Math.min(bestPer, spent / steps)
  }
  return bestPer
}

/** Median wall µs per call of each build's warm turns, the builds' calls interleaved. */
function interleaved(n, steps = 300, rounds = 3) {
  const all = makeTranscript(n + 4 * (steps + 1))
  const names = Object.keys(builds)
  const times = names.map(() => [])
  for (let r = 0; r < rounds; r++) {
    const histories = names.map(() => all.slice(0, n))
    const sanitizers = names.map((name, i) => {
      const s = builds[name].createTranscriptSanitizer(POLICY)
      s.sanitize(histories[i])
      return s
    })
    for (let k = 0; k < steps; k++) {
      for (const h of histories) for (let j = 0; j < 4; j++) h.push(all[h.length])
      for (let x = 0; x < names.length; x++) {
        const i = k % 2 ? x : names.length - 1 - x
        const t = process.hrtime.bigint()
        sanitizers[i].sanitize(histories[i])
        times[i].push(Number(process.hrtime.bigint() - t) / 1000)
      }
    }
  }
  return Object.fromEntries(names.map((name, i) => [name, times[i].sort((a, b) => a - b)[times[i].length >> 1]]))
}

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, load average ${load()}`)
console.log(`other build: ${resolve(other)}; OpenClaw mode ${version ?? 'default'}; OpenClaw: ${oc ? oc.version : 'not installed (or not runnable on this Node)'}; policy ${named ?? 'anthropic'}\n`)
console.log('| case | history | OpenClaw | other build | this build | this / other | vs OpenClaw |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const n of [1000, 10000]) {
  const messages = makeTranscript(n)
  const params = { messages, ...POLICY }
  const ocPolicy = oc ? oc.fns.resolveTranscriptPolicy(OC_POLICY) : null
  const theirs = oc ? await cpuTimeAsync(() => oc.fns.sanitizeSessionHistory({ ...params, ...OC_POLICY, ...ocSession, policy: ocPolicy })) : NaN
  const t = {}
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, th] of Object.entries(builds)) t[name] = Math.min(t[name] ?? Infinity, cpuTime(() => th.sanitizeSessionHistory(params)))
  }
  row('full pass', n, theirs, t.other, t.this, 0)
  if (named) continue
  for (const cold of [false, true]) {
    const w = {}
    for (let r = 0; r < ROUNDS; r++) for (const [name, th] of Object.entries(builds)) w[name] = Math.min(w[name] ?? Infinity, turn(th, n, cold))
    row(`turn (+4), ${cold ? 'cold' : 'warm'}`, n, NaN, w.other, w.this, 1)
  }
  const rb = {}
  for (let r = 0; r < ROUNDS; r++) for (const [name, th] of Object.entries(builds)) rb[name] = Math.min(rb[name] ?? Infinity, turn(th, n, false, 20, 2, true))
  row('turn (+4), new objects every call (content-keyed)', n, NaN, rb.other, rb.this, 1)
  const m = interleaved(n)
  row('turn (+4), warm, median wall per call, interleaved', n, NaN, m.other, m.this, 1)
}
console.log(`\n(load average ${load()} at the end)`)

function row(name, n, theirs, a, b, digits) {
  const oc = Number.isNaN(theirs) ? '—' : theirs.toFixed(0)
  const vs = Number.isNaN(theirs) ? '—' : `${(theirs / b).toFixed(1)}×`
  console.log(`| ${name} | ${n} | ${oc} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(b / a).toFixed(2)} | ${vs} |`)
}
