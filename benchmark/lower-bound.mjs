// How far a native addon can get below OpenClaw's full transcript pass: the parts of our call and
// the least any implementation that looks at the history must do, timed in one process on the
// same transcripts. `node benchmark/lower-bound.mjs [sizes] [rounds]` (sizes default 1000,10000;
// rounds default 3). Per size and policy (side-by-side.mjs's four), CPU µs per call
// (benchmark/cpu-time.mjs, best of 7 batches; each column its best round) of:
//   (a) OpenClaw 2026.3.23-2's sanitizeSessionHistory (its policy resolved once, as side-by-side)
//   (b) this build's sanitizeSessionHistory, the whole call (no session: the full pass)
//   (c) the codec's encode alone (js/codec.js, with the read set the call uses)
//   (n) the native call alone, on a copy of that skeleton (the rules, the model, the plan writer)
//   (e) the codec's apply alone, on a copy of the plan the call got
//   (d) the floor: a JS loop that reads every message's role, every block's type and every
//       string field the codec reads (a text's length and first character, as `blank` does)
//   (d0) less still: roles and block types only
// and the ratios (c)/(a), (d)/(a), (e)/(a). The aim "8× OpenClaw" needs the whole call at most
// (a)/8: a part that alone costs more than that makes the aim unreachable for this design.
import { createRequire } from 'node:module'
import os from 'node:os'
import { cpuTime as time, cpuTimeAsync as timeAsync } from './cpu-time.mjs'
import { loadOpenClaw } from './openclaw.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const codec = require('../js/codec.js')
const native = require('../binding.js')
th.setOpenClawVersion('2026.3.23')
const sizes = (process.argv[2] || '1000,10000').split(',').map(Number)
const rounds = Number(process.argv[3] || 3)
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const oc = await loadOpenClaw()
if (oc === null) throw new Error('OpenClaw 2026.3.23-2 is not installed: sh scripts/install-reference.sh')
const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
}
const session = () => ({ getEntries: () => [], appendCustomEntry() {} })

// One real call, watched: the arguments encode and the native call got, and the plan apply got
// (copied: the codec's buffers are reused by the next call).
function capture(params) {
  const seen = {}
  const { encode, apply } = codec
  const runTranscript = native.runTranscript
  codec.encode = (...args) => {
    seen.encode = args
    const s = encode(...args)
    seen.skeleton = { codes: s.codes.slice(), reals: s.reals.slice(), strs: s.strs.slice() }
    return s
  }
  native.runTranscript = (...args) => {
    seen.native = args
    return runTranscript(...args)
  }
  codec.apply = (messages, plan, ...rest) => {
    seen.plan = plan.nums ? { n: plan.n, nums: plan.nums.slice(), vals: plan.vals, texts: plan.texts } : plan
    return apply(messages, plan, ...rest)
  }
  try {
    th.sanitizeSessionHistory(params)
  } finally {
    Object.assign(codec, { encode, apply })
    native.runTranscript = runTranscript
  }
  return seen
}

// The floor. Every read feeds a sum the loop returns, so none can be left out by the compiler.
function isObj(x) {
  return x !== null && typeof x === 'object'
}
function len(x) {
  return typeof x === 'string' ? x.length + (x.length > 0 ? x.charCodeAt(0) : 0) : x === undefined ? 0 : 1
}
function floor(messages) {
  let s = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (!isObj(m)) continue
    s += len(m.role) + len(m.stopReason) + len(m.toolCallId) + len(m.toolUseId) + len(m.toolName) + len(m.errorMessage)
    s += (m.timestamp !== undefined ? 1 : 0) + (m.provenance !== undefined ? 1 : 0) + (m.usage !== undefined ? 1 : 0)
    const c = m.content
    if (!Array.isArray(c)) {
      s += len(c)
      continue
    }
    for (let j = 0; j < c.length; j++) {
      const b = c[j]
      if (!isObj(b)) continue
      const type = b.type
      s += len(type)
      if (type === 'text') s += len(b.text)
      else if (type === 'thinking') s += len(b.thinking) + len(b.thinkingSignature)
      else if (type === 'toolCall' || type === 'toolUse' || type === 'functionCall') s += len(b.id) + len(b.name) + (b.input !== undefined ? 1 : 0) + (b.arguments !== undefined ? 1 : 0)
      else if (type === 'image') s += len(b.data) + len(b.mimeType)
      else if (type === 'toolResult') s += len(b.toolUseId)
      s += len(b.thought_signature) + len(b.thoughtSignature)
    }
  }
  return s
}
function rolesAndTypes(messages) {
  let s = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (!isObj(m)) continue
    s += m.role.length
    const c = m.content
    if (Array.isArray(c)) for (let j = 0; j < c.length; j++) s += c[j].type.length
  }
  return s
}

const COLS = ['a', 'b', 'c', 'n', 'e', 'd', 'd0']
console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, Node ${process.version}, ${new Date().toISOString()}`)
console.log('CPU µs a call (best of 7 batches, best of rounds): (a) OpenClaw, (b) our whole call, (c) encode, (n) native call, (e) apply, (d) floor loop, (d0) roles and types')
console.log('| messages | policy | (a) | (b) | (c) | (n) | (e) | (d) | (d0) | (a)/(b) | (c)/(a) | (d)/(a) | (e)/(a) | (a)/8 |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
const findings = []
let sink = 0
for (const size of sizes) {
  const messages = makeTranscript(size)
  for (const [name, p] of Object.entries(POLICIES)) {
    const ocPolicy = oc.fns.resolveTranscriptPolicy(p)
    const params = { messages, ...p, sessionManager: session() }
    const seen = capture(params)
    const [, , , , op, config] = seen.native
    const [, encName, withExtras, withMarks, leaveOut] = seen.encode
    const out = new Float64Array(4 + 16 * size)
    const fns = {
      a: null,
      b: () => th.sanitizeSessionHistory(params),
      c: () => codec.encode(messages, encName, withExtras, withMarks, leaveOut),
      n: () => native.runTranscript(messages, seen.skeleton.codes, seen.skeleton.reals, seen.skeleton.strs, op, config, out),
      e: () => codec.apply(messages, seen.plan),
      d: () => (sink += floor(messages)),
      d0: () => (sink += rolesAndTypes(messages)),
    }
    const best = Object.fromEntries(COLS.map((k) => [k, Infinity]))
    for (let r = 0; r < rounds; r++) {
      best.a = Math.min(best.a, await timeAsync(() => oc.fns.sanitizeSessionHistory({ messages, ...p, policy: ocPolicy, sessionManager: session() })))
      for (const k of COLS.slice(1)) best[k] = Math.min(best[k], time(fns[k]))
    }
    const f = (x) => x.toFixed(0)
    const r = (x) => (x / best.a).toFixed(3)
    console.log(
      `| ${size} | ${name} | ${COLS.map((k) => f(best[k])).join(' | ')} | ${(best.a / best.b).toFixed(2)}× | ${r(best.c)} | ${r(best.d)} | ${r(best.e)} | ${f(best.a / 8)} |`,
    )
    for (const k of ['c', 'n', 'e', 'd']) if (best[k] > best.a / 8) findings.push(`${size} ${name}: (${k}) ${f(best[k])} µs > (a)/8 = ${f(best.a / 8)} µs`)
    if (best.c + best.e > best.a / 8) findings.push(`${size} ${name}: (c)+(e) ${f(best.c + best.e)} µs > (a)/8 = ${f(best.a / 8)} µs`)
  }
}
console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
if (findings.length > 0) console.log(`Alone more than 1/8 of OpenClaw's pass (the 8× aim cannot be met while they stay):\n  ${findings.join('\n  ')}`)
if (sink === 0.5) console.log(sink)
