// Where one sanitizeSessionHistory call's time goes, in CPU time (benchmark/cpu-time.mjs): a
// diagnostic for whoever tunes the transcript pass, not part of `npm run bench`.
//
//   - The full pass at 1,000 and 10,000 messages: each step of the call (js/run.js) timed alone,
//     repeated on the same input — the skeleton built by js/codec.js, the native call, the
//     answer's JSON parsed, the plan applied — beside the whole call, and beside the plain-JS pass
//     of benchmark/js-baseline.mjs as a yardstick. On this shared VM the same code's CPU time
//     moves by up to ~1.7× from one run to the next: the whole call read 856 µs in one run of this
//     file and 1,620–1,816 in two bench.mjs runs minutes earlier, whose plain-JS pass read 422–434
//     µs where later runs read 247–274; timed in one process, the two ways of calling agree
//     (within ±15%). Compare a figure with another run's through its yardstick, never directly.
//   - A turn appending 4 messages to a history of 1,000 and of 10,000 (createTranscriptSanitizer):
//     the whole call, best of batches, with the caches warm (turn after turn) and cold (as between
//     an agent's turns); then the warm turns with each step wrapped in a CPU clock
//     (js/transcript-session.js's prefix check and copies are what is left of the call).
//   - The same warm turns with each call timed alone in wall time: the least and the median.
//   - Each step of a warm continued call, timed per call in wall time (least / median): a replica
//     of js/transcript-session.js `continued` and js/run.js, step by step (keep it in step with them).
//   - A turn whose messages are new objects every call (the content-keyed path) beside the full
//     pass on the same input.
//   - The same warm turns with a session manager holding the history as entries (as pi's does:
//     a message entry per message, a model snapshot near the start, no Google bootstrap marker),
//     beside the turns without one: what reading the entries adds to a turn.
import { createRequire } from 'node:module'
import os from 'node:os'
import { cpuSince, cpuTime, flushCaches } from './cpu-time.mjs'
import { jsPass } from './js-baseline.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
// OpenClaw 2026.3.23 mode unless named (`node benchmark/incremental-breakdown.mjs 2026.9.6`): pinned,
// the package default being 2026.9.6.
const VERSION = process.argv[2] ?? '2026.3.23'
th.setOpenClawVersion(VERSION)
const native = require('../binding.js')
const codec = require('../js/codec.js')
const { toJson } = require('../js/args.js')
const { Session } = require('../js/transcript-session.js')
const { startsWith } = require('../js/session-entries.js')
const { keepPlan } = require('../js/run.js')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))

const POLICY = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
const load = () => os.loadavg()[0].toFixed(2)
const f = (x) => x.toFixed(1)

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, load average ${load()}; OpenClaw ${VERSION} mode`)
console.log('\nfull pass (CPU µs per call, each step alone, best of 7 batches)')
for (const n of [1000, 10000]) {
  const messages = makeTranscript(n)
  const whole = cpuTime(() => th.sanitizeSessionHistory({ messages, ...POLICY }))
  const v96 = VERSION === '2026.9.6'
  const encode = cpuTime(() => codec.encode(messages, 'messages', v96))
  const { codes: c, reals: r, strs: s } = codec.encode(messages, 'messages', v96)
  const codes = c.slice()
  const reals = r.slice()
  const strs = s.slice()
  const config = toJson({ ...POLICY, now: 0 }, 'options')
  const buf = new Float64Array(64 + 8 * n)
  const call = () => native.runTranscript(messages, codes, reals, strs, 'sanitizeSessionHistory', config, buf)
  const nativeCall = cpuTime(call)
  const answer = call()
  const k = answer.indexOf(codec.SEP)
  const json = k < 0 ? answer : answer.slice(0, k)
  const parse = cpuTime(() => JSON.parse(json))
  const plan = JSON.parse(json)
  plan.nums = buf.slice(4, 4 + buf[0])
  plan.texts = k < 0 ? '' : answer.slice(k)
  const apply = cpuTime(() => codec.apply(messages, plan))
  const parts = encode + nativeCall + parse + apply
  const yardstick = cpuTime(() => jsPass(messages, { dropThinking: true, sanitizeIds: true }))
  console.log(
    `${n}: whole ${f(whole)} | encode ${f(encode)} | native ${f(nativeCall)} | parse ${f(parse)} | apply ${f(apply)} | rest ${f(whole - parts)}` +
      ` | plain JS ${f(yardstick)} µs (skeleton ${codes.length} codes + ${reals.length} numbers + ${strs.length} bytes; plan ${buf[0]} numbers + ${json.length} chars of JSON; load ${load()})`,
  )
}

// A turn whose messages are all new objects with the same content (as OpenClaw 2026.9.6's runner
// rebuilds them from its store): the content-keyed path, beside the full pass on the same input.
console.log('\nturn, 4 messages appended, new objects every call (CPU µs per call, best of 3 batches of 20 turns; the rebuild not timed)')
const rebuild = (history) => history.map((m) => ({ ...m, content: Array.isArray(m.content) ? m.content.map((b) => ({ ...b })) : m.content }))
for (const n of [1000, 10000]) {
  const all = makeTranscript(n + 4 * 21)
  const best = { 'content-keyed': Infinity, 'full pass': Infinity }
  for (let b = 0; b < 3; b++) {
    const history = all.slice(0, n)
    const s = th.createTranscriptSanitizer(POLICY)
    // The first call with new objects after another takes the full pass (it starts the skeletons).
    s.sanitize(history)
    s.sanitize(rebuild(history))
    const spent = { 'content-keyed': 0, 'full pass': 0 }
    for (let k = 0; k < 20; k++) {
      for (let j = 0; j < 4; j++) history.push(all[history.length])
      const input = rebuild(history)
      let c = process.cpuUsage()
      s.sanitize(input)
      spent['content-keyed'] += cpuSince(c)
      c = process.cpuUsage()
      th.sanitizeSessionHistory({ messages: input, ...POLICY })
      spent['full pass'] += cpuSince(c)
    }
    for (const k of Object.keys(best)) best[k] = Math.min(best[k], spent[k] / 20)
  }
  console.log(`${n}: content-keyed ${f(best['content-keyed'])} | full pass ${f(best['full pass'])} µs (${f(best['full pass'] / best['content-keyed'])}×; load ${load()})`)
}

// The wrapped steps of the incremental turn: each adds its CPU µs to a bucket.
const buckets = {}
const wrapped = []
function wrap(obj, key, name) {
  const orig = obj[key]
  buckets[name] = 0
  wrapped.push(() => {
    obj[key] = orig
  })
  obj[key] = function (...a) {
    const c0 = process.cpuUsage()
    try {
      return orig.apply(this, a)
    } finally {
      buckets[name] += cpuSince(c0)
    }
  }
}

// `cold`: the caches flushed before each turn (cpu-time.mjs, flushCaches; not timed: each turn is
// then timed alone, less the cost of reading the clock).

/**
 * CPU µs per turn over `steps` turns of 4 appended messages, from a history of `n`; best of
 * `batches` (with the wrapped steps' buckets of that batch).
 */
function turns(n, steps, batches, cold = false) {
  const all = makeTranscript(n + 4 * (steps + 1))
  let best = Infinity
  let bestBuckets = null
  for (let b = 0; b < batches; b++) {
    const history = all.slice(0, n)
    const s = th.createTranscriptSanitizer(POLICY)
    s.sanitize(history)
    for (const k of Object.keys(buckets)) buckets[k] = 0
    let spent = 0
    const c0 = process.cpuUsage()
    for (let k = 0; k < steps; k++) {
      for (let j = 0; j < 4; j++) history.push(all[history.length])
      if (cold) {
        flushCaches()
        const c1 = process.cpuUsage()
        s.sanitize(history)
        spent += cpuSince(c1) - clock
      } else {
        s.sanitize(history)
      }
    }
    const per = (cold ? spent : cpuSince(c0)) / steps
    if (per < best) {
      best = per
      bestBuckets = Object.fromEntries(Object.entries(buckets).map(([k, v]) => [k, v / steps]))
    }
  }
  return { best, buckets: bestBuckets }
}

// What one pair of CPU clock reads costs, taken off each timed call and wrapped step.
const clock = cpuTime(() => cpuSince(process.cpuUsage()))
console.log('\nincremental turn, 4 messages appended (CPU µs per call, best of 7 batches of 100 turns)')
const plain = {}
for (const n of [1000, 10000]) {
  plain[n] = turns(n, 100, 7).best
  const cold = turns(n, 100, 7, true).best
  console.log(`${n}: warm ${f(plain[n])} | cold ${f(cold)} µs (load ${load()})`)
}
wrap(native, 'runTranscriptSession', 'native call')
wrap(codec, 'encode', 'encode')
wrap(codec, 'apply', 'apply')
for (const n of [1000, 10000]) {
  const { buckets: b } = turns(n, 100, 7)
  let known = 0
  const row = [`whole ${f(plain[n])}`]
  for (const [k, v] of Object.entries(b)) {
    const net = Math.max(0, v - clock)
    known += net
    row.push(`${k} ${f(net)}`)
  }
  row.push(`rest ${f(plain[n] - known)}`)
  console.log(`${n}: ${row.join(' | ')} µs (steps wrapped in a CPU clock of ${f(clock)} µs, taken off; load ${load()})`)
}
for (const undo of wrapped) undo()

// The same warm turns, each step timed per call in wall time: the least and the median. On a
// loaded machine the best batch's mean above still carries every turn that lost its caches to a
// neighbour; the least single call is what the step itself costs (its native call was ~11 µs at
// 1,000 messages where the mean said ~40, load average 16).
const per = { whole: [], 'native call': [], encode: [] }
let recording = false
function timeEach(obj, key, name) {
  const orig = obj[key]
  obj[key] = function (...a) {
    const t = process.hrtime.bigint()
    try {
      return orig.apply(this, a)
    } finally {
      if (recording) per[name].push(Number(process.hrtime.bigint() - t) / 1000)
    }
  }
  return () => {
    obj[key] = orig
  }
}
const undoEach = [timeEach(native, 'runTranscriptSession', 'native call'), timeEach(codec, 'encode', 'encode')]
for (const n of [1000, 10000]) {
  for (const k of Object.keys(per)) per[k].length = 0
  const all = makeTranscript(n + 4 * 201)
  for (let b = 0; b < 7; b++) {
    const history = all.slice(0, n)
    const s = th.createTranscriptSanitizer(POLICY)
    s.sanitize(history)
    recording = true
    for (let k = 0; k < 200; k++) {
      for (let j = 0; j < 4; j++) history.push(all[history.length])
      const t = process.hrtime.bigint()
      s.sanitize(history)
      per.whole.push(Number(process.hrtime.bigint() - t) / 1000)
    }
    recording = false
  }
  const row = Object.entries(per).map(([k, a]) => {
    a.sort((x, y) => x - y)
    return `${k} ${f(a[0])} / ${f(a[a.length >> 1])}`
  })
  console.log(`${n}: least / median wall µs per call: ${row.join(' | ')} (load ${load()})`)
}
for (const undo of undoEach) undo()

// A session manager as pi's: the messages are entries too, the model snapshot was written on the
// first call, no bootstrap marker (so the entries the pass reads are all of them, read from the end).
console.log('\nincremental turn with a session manager (CPU µs per call, best of 7 batches of 100 turns)')
for (const n of [1000, 10000]) {
  const all = makeTranscript(n + 4 * 101)
  const cost = { without: Infinity, with: Infinity }
  for (let b = 0; b < 7; b++) {
    for (const mode of Object.keys(cost)) {
      const history = all.slice(0, n)
      const entries = [{ type: 'custom', customType: 'model-snapshot', data: { timestamp: 1, ...POLICY } }]
      for (const m of history) entries.push({ type: 'message', message: m })
      const sessionManager = { getEntries: () => entries, appendCustomEntry: (customType, data) => entries.push({ type: 'custom', customType, data }) }
      const s = th.createTranscriptSanitizer(mode === 'with' ? { ...POLICY, sessionManager } : POLICY)
      s.sanitize(history)
      const c0 = process.cpuUsage()
      for (let k = 0; k < 100; k++) {
        for (let j = 0; j < 4; j++) {
          const m = all[history.length]
          history.push(m)
          entries.push({ type: 'message', message: m })
        }
        s.sanitize(history)
      }
      cost[mode] = Math.min(cost[mode], cpuSince(c0) / 100)
    }
  }
  console.log(`${n} messages (${n + 1} entries): without ${f(cost.without)} | with ${f(cost.with)} | the entries ${f(cost.with - cost.without)} µs (load ${load()})`)
}

// Each step of the continued call on its own clock (wall µs; the least is what the step costs).
console.log('\nwarm continued call, step by step (least / median wall µs per call over 1,600 turns)')
for (const n of [1000, 10000]) {
  const times = {}
  const all = makeTranscript(n + 4 * 401)
  for (let b = 0; b < 4; b++) {
    const history = all.slice(0, n)
    const s = new Session(toJson(POLICY, 'params'))
    s.sanitize(history, POLICY, null, 0)
    for (let k = 0; k < 400; k++) {
      for (let j = 0; j < 4; j++) history.push(all[history.length])
      let t0 = process.hrtime.bigint()
      const start = t0
      const lap = (name) => {
        const t = process.hrtime.bigint()
        ;(times[name] ??= []).push(Number(t - t0) / 1000)
        t0 = t
      }
      if (!startsWith(history, s.seen)) throw new Error('the history no longer extends the session')
      lap('check')
      const cut = s.seen.length
      const suffix = history.slice(cut)
      const sk = codec.encode(suffix, 'messages', VERSION === '2026.9.6', s.keep)
      lap('skeleton')
      const buf = codec.planBuffer()
      const answer = native.runTranscriptSession(s.native, suffix, sk.codes, sk.reals, sk.strs, null, 0, cut, buf)
      lap('native')
      const at = answer.indexOf(codec.SEP)
      const plan = JSON.parse(at < 0 ? answer : answer.slice(0, at))
      plan.session = { cut: buf[2], out: buf[3] }
      if (buf[0] >= 0) {
        plan.nums = codec.takePlan(buf, buf[0])
        plan.texts = at < 0 ? '' : answer.slice(at)
      }
      lap('answer')
      const got = codec.apply(suffix, plan)
      lap('plan')
      const outCut = s.outCut
      s.out.length = outCut
      for (const m of got) s.out.push(m)
      s.step(history, cut, { plan, skeleton: sk }, suffix.length)
      if (s.keep && s.outCut > outCut) s.segments.push({ start: cut, len: suffix.length, plan: keepPlan(plan), take: s.outCut - outCut })
      lap('bookkeeping')
      s.out.slice()
      lap('copy')
      ;(times.whole ??= []).push(Number(t0 - start) / 1000)
    }
  }
  const row = Object.entries(times).map(([k, a]) => {
    a.sort((x, y) => x - y)
    return `${k} ${f(a[0])} / ${f(a[a.length >> 1])}`
  })
  console.log(`${n}: ${row.join(' | ')} (load ${load()})`)
}
