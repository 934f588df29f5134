// Gateways on OpenAI chat completions bodies, two parts; run with the release build.
// 1. The bytes a gateway holds: a 5 MB body of 2,000 messages with screenshots, end to end (bytes
//    in, bytes out) — sanitizeRequestBuffer against JSON.parse + a plain JS pass + JSON.stringify
//    of the same repair, and against JSON.parse + sanitizeRequest + JSON.stringify.
// 2. Objects: sanitizeRequest on bodies of 1,000 and 10,000 messages against JSON.stringify alone
//    and the plain JS pass.
// The repair everywhere: Mistral ids on calls and results, orphan results dropped. Chinese text.
// Prints µs per call (median and best). The screenshots are real PNGs within the limits (kept from
// their head); one row adds ten over 1200 px, which the image step re-encodes (first call) or
// answers from the process-wide image cache (every later call, as on a gateway's next turn).
// 3. With `node benchmark/wire.mjs <dir>` (<dir> holding another build: its index.js, binding.js,
//    js/ and .node, e.g. main's), only sanitizeRequest on objects, the other build against this one
//    and the plain JS pass, interleaved in this process, in CPU µs (benchmark/cpu-time.mjs).
import { createRequire } from 'node:module'
import os from 'node:os'
import { resolve } from 'node:path'
import { cpuTime } from './cpu-time.mjs'
import { encodePng } from '../__test__/fixtures/png.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const otherDir = process.argv[2]

/** A body of `n` messages: user / assistant with two calls / two results, ids `call_…`. */
function makeBody(n) {
  const messages = [{ role: 'system', content: '你是一个编程助手。Answer briefly.' }]
  for (let i = 0; messages.length < n; i++) {
    messages.push({ role: 'user', content: `第 ${i} 步：请读取 src/f${i}.ts 并解释它做什么。` })
    const calls = [0, 1].map((k) => ({ id: `call_${i}_${k}x`, type: 'function', function: { name: 'read', arguments: JSON.stringify({ path: `src/f${i}_${k}.ts` }) } }))
    messages.push({ role: 'assistant', content: null, tool_calls: calls })
    for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: `export function f${i}() { return ${i} } // 文件内容 ${'x'.repeat(120)}` })
    messages.push({ role: 'assistant', content: `文件 f${i} 返回 ${i}。` })
  }
  return { model: 'mistral-large-latest', tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }], messages }
}

/** The plain JS baseline: Mistral ids (first nine alphanumerics; no collision handling) and orphans dropped. */
function jsPass(body) {
  const nine = (id) => id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 9).padEnd(9, '0')
  const out = []
  let open = new Set()
  for (const m of body.messages) {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      open = new Set(m.tool_calls.map((c) => c.id))
      out.push({ ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: nine(c.id) })) })
    } else if (m.role === 'tool') {
      if (open.has(m.tool_call_id)) out.push({ ...m, tool_call_id: nine(m.tool_call_id) })
    } else {
      open = new Set()
      out.push(m)
    }
  }
  return { ...body, messages: out }
}

function best(fn, runs) {
  fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - t) / 1e3)
  }
  times.sort((a, b) => a - b)
  return { best: times[0], median: times[times.length >> 1] }
}

/** 2,000 messages, a screenshot (~25 KB of base64, a real PNG) in every tenth user turn, ~5 MB in all. */
function makeShotBody(n) {
  const shot = encodePng(80, 75, { noise: 7 }).toString('base64')
  const body = makeBody(n)
  let u = 0
  for (const m of body.messages) {
    if (m.role !== 'user' || u++ % 2 !== 0) continue
    m.content = [{ type: 'text', text: m.content }, { type: 'image_url', image_url: { url: `data:image/png;base64,${shot}` } }]
  }
  // One result whose call is gone (compaction), so the repair has an orphan to drop.
  body.messages.splice(3, 0, { role: 'tool', tool_call_id: 'call_gone', content: '孤儿结果' })
  return body
}

if (otherDir) {
  const other = require(resolve(otherDir, 'index.js'))
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')
  const clean = { protocol: 'openai-chat', provider: 'openai', policy: { sanitizeToolCallIds: false, repairToolUseResultPairing: false } }
  const mistral = { protocol: 'openai-chat', provider: 'mistral' }
  console.log(`Node ${process.version}, other build: ${resolve(otherDir)}, load average ${load()}`)
  console.log('| body | plain JS pass | other, no repair | this, no repair | other, Mistral | this, Mistral | this ÷ JS, no repair | this ÷ JS, Mistral |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
  const bodies = [
    ['1,000 messages', makeBody(1000)],
    ['10,000 messages', makeBody(10000)],
    ['2,002 messages with screenshots (5.2 MB)', makeShotBody(2000)],
  ]
  for (const [name, body] of bodies) {
    for (const b of [other, th]) {
      if (JSON.stringify(b.sanitizeRequest(body, mistral)) !== JSON.stringify(th.sanitizeRequest(body, mistral))) throw new Error('the builds disagree')
    }
    const t = {}
    const rows = { js: () => jsPass(body), oc: () => other.sanitizeRequest(body, clean), tc: () => th.sanitizeRequest(body, clean), om: () => other.sanitizeRequest(body, mistral), tm: () => th.sanitizeRequest(body, mistral) }
    for (let r = 0; r < 3; r++) for (const [k, fn] of Object.entries(rows)) t[k] = Math.min(t[k] ?? Infinity, cpuTime(fn, { batches: 5, batchMs: 60 }))
    const f = (x) => Math.round(x).toLocaleString('en')
    console.log(`| ${name} | ${f(t.js)} | ${f(t.oc)} | ${f(t.tc)} | ${f(t.om)} | ${f(t.tm)} | ${(t.tc / t.js).toFixed(2)} | ${(t.tm / t.js).toFixed(2)} |`)
  }
  console.log(`(load average ${load()} at the end)`)
  process.exit(0)
}

const fmt = (r) => `${Math.round(r.median).toLocaleString('en')} µs (best ${Math.round(r.best).toLocaleString('en')})`
{
  const body = makeShotBody(2000)
  const buf = Buffer.from(JSON.stringify(body))
  const mistral = { protocol: 'openai-chat', provider: 'mistral' }
  const clean = { protocol: 'openai-chat', provider: 'openai', policy: { sanitizeToolCallIds: false, repairToolUseResultPairing: false } }
  const viaJs = () => Buffer.from(JSON.stringify(jsPass(JSON.parse(buf.toString('utf8')))))
  const viaObjects = () => Buffer.from(JSON.stringify(th.sanitizeRequest(JSON.parse(buf.toString('utf8')), mistral)))
  const viaBytes = () => th.sanitizeRequestBuffer(buf, mistral)
  const a = JSON.parse(viaBytes().toString('utf8'))
  const b = JSON.parse(viaObjects().toString('utf8'))
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('sanitizeRequestBuffer and sanitizeRequest disagree')
  const parsed = JSON.parse(buf.toString('utf8'))
  const runs = 15
  const js = best(viaJs, runs)
  const bytes = best(viaBytes, runs)
  console.log(`${body.messages.length.toLocaleString('en')} messages with screenshots, ${(buf.length / 1e6).toFixed(1)} MB, bytes in → bytes out`)
  console.log(`  JSON.parse + plain JS pass + JSON.stringify          ${fmt(js)}`)
  console.log(`  JSON.parse + sanitizeRequest + JSON.stringify        ${fmt(best(viaObjects, runs))}`)
  console.log(`  sanitizeRequest on the parsed object alone           ${fmt(best(() => th.sanitizeRequest(parsed, mistral), runs))}`)
  console.log(`  plain JS pass on the parsed object alone             ${fmt(best(() => jsPass(parsed), runs))}`)
  console.log(`  sanitizeRequestBuffer, Mistral (every id)            ${fmt(bytes)}  → ${(js.median / bytes.median).toFixed(1)}× the JS path`)
  console.log(`  sanitizeRequestBuffer, nothing to repair             ${fmt(best(() => th.sanitizeRequestBuffer(buf, clean), runs))}`)
  // Ten of the screenshots over 1200 px (distinct images), re-encoded to fit.
  let k = 0
  for (const m of body.messages) {
    if (Array.isArray(m.content) && k < 10) m.content[1] = { type: 'image_url', image_url: { url: `data:image/png;base64,${encodePng(1600 + k++, 900).toString('base64')}` } }
  }
  const big = Buffer.from(JSON.stringify(body))
  const shrink = () => th.sanitizeRequestBuffer(big, clean)
  th.clearImageCache()
  const t = process.hrtime.bigint()
  shrink()
  const first = Number(process.hrtime.bigint() - t) / 1e3
  console.log(`  sanitizeRequestBuffer, 10 screenshots 1600×900 → 1200 px (${(big.length / 1e6).toFixed(1)} MB): first call ${Math.round(first).toLocaleString('en')} µs, then (cached) ${fmt(best(shrink, runs))}`)
}

for (const n of [1000, 10000]) {
  const body = makeBody(n)
  const bytes = JSON.stringify(body).length
  const runs = n > 5000 ? 7 : 25
  const clean = { protocol: 'openai-chat', provider: 'openai', policy: { sanitizeToolCallIds: false } }
  const mistral = { protocol: 'openai-chat', provider: 'mistral' }
  const same = th.sanitizeRequest(body, clean) === body
  console.log(`${n.toLocaleString('en')} messages, ${(bytes / 1024).toFixed(0)} KB of JSON`)
  console.log(`  JSON.stringify(body) alone              ${fmt(best(() => JSON.stringify(body), runs))}`)
  console.log(`  plain JS pass (ids + orphans)           ${fmt(best(() => jsPass(body), runs))}`)
  console.log(`  sanitizeRequest, nothing to repair      ${fmt(best(() => th.sanitizeRequest(body, clean), runs))}${same ? '' : '  (NOT the identity)'}`)
  console.log(`  sanitizeRequest, Mistral (every id)     ${fmt(best(() => th.sanitizeRequest(body, mistral), runs))}`)
}
