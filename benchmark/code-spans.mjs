// What the code-span and fence tracking costs cleanResponse, in one process and one build: the
// same native call with the tracking on (the default) and off (`markupInCode: true`, a switch
// only the benchmark passes to the native `cleanResponseJson`; the JS options do not offer it),
// on 50 KB replies with a <think> block and one MiniMax call: prose with inline code spans and
// fenced examples, and prose with neither, ASCII and half Chinese. Interleaved CPU-time rounds
// (see benchmark/reply-vs-openclaw.mjs).
//   node benchmark/code-spans.mjs [rounds] [other build]
// With another build of this package (a directory holding its binding.js and .node file, e.g. an
// earlier commit's, built), a second table times both builds in this one process, each round
// running the four batches (other off, other on, this off, this on) in turn, the order reversed
// every other round: each build's on / off, and this build over the other, tracking off and on.
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'
import os from 'node:os'
import { resolve } from 'node:path'
import { batch, sideBySide, sizeBatch } from './reply-vs-openclaw.mjs'

const require = createRequire(import.meta.url)
// TH_PACKAGE (see response.mjs): the binding beside that build's index.js.
const native = require(process.env.TH_PACKAGE ? new URL('binding.js', `file://${process.env.TH_PACKAGE}`).pathname : '../binding.js')

const en = 'The parser reads `cleanResponse(text)` and returns the visible text; see [the docs](x) for a < b. '
const zh = '模型的回复会经过清理，`cleanResponse` 返回可见文本，a < b 时请参考文档。'
const fence = '\n```js\nconst r = cleanResponse(text, { model })\nif (r.toolCalls.length > 0) run(r.toolCalls)\n```\n'
const call = '\n<minimax:tool_call>\n<invoke name="search_web">\n<parameter name="query">北京天气</parameter>\n</invoke>\n</minimax:tool_call>\n'
function reply(unit, withCode) {
  let s = '<think>先想一想 the plan</think>\n'
  let i = 0
  while (Buffer.byteLength(s) < 50_000) {
    s += unit
    if (withCode && i % 6 === 5) s += fence
    i++
  }
  return s + call
}
const CASES = {
  'ASCII, ~500 code spans + ~80 fences': reply(en, true),
  'half Chinese, same code': reply(en + zh, true),
  'ASCII, no code': reply(en.replace(/`/g, ''), false),
  'half Chinese, no code': reply((en + zh).replace(/`/g, ''), false),
}

export async function run(rounds) {
  console.log('\n(d) code-span and fence tracking: cleanResponse on 50 KB replies, tracking on vs off, CPU µs per call (median of interleaved rounds)')
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  console.log('| 50 KB reply | off µs | on µs | on / off (median) | range |')
  console.log('| --- | --- | --- | --- | --- |')
  const ON = '{}'
  const OFF = '{"markupInCode":true}'
  for (const [name, text] of Object.entries(CASES)) {
    for (const o of [ON, OFF]) assert.equal(callCount(native.cleanResponseJson(text, o)), 1)
    // sideBySide gives theirs / ours: "theirs" is tracking on, "ours" tracking off.
    const r = sideBySide(() => native.cleanResponseJson(text, OFF), () => native.cleanResponseJson(text, ON), rounds)
    const med = r.ratios[r.ratios.length >> 1]
    console.log(`| ${name} | ${r.ours.toFixed(1)} | ${r.theirs.toFixed(1)} | ${med.toFixed(2)} | ${r.ratios[0].toFixed(2)}–${r.ratios[r.ratios.length - 1].toFixed(2)} |`)
  }
  // The floor of this method: the very same call on both sides (second batch of a round over the
  // first), so a ratio this far from 1 is order and noise, not tracking.
  const same = CASES['ASCII, no code']
  const r = sideBySide(() => native.cleanResponseJson(same, ON), () => native.cleanResponseJson(same, ON), rounds)
  const med = r.ratios[r.ratios.length >> 1]
  console.log(`| ASCII, no code: on vs on (A/A) | ${r.ours.toFixed(1)} | ${r.theirs.toFixed(1)} | ${med.toFixed(2)} | ${r.ratios[0].toFixed(2)}–${r.ratios[r.ratios.length - 1].toFixed(2)} |`)
}

/** The calls in a native result: builds since the flat `toolCalls` send three lengths (id, name, arguments) per call. */
function callCount(result) {
  const t = JSON.parse(result.json).toolCalls
  // A count (this build), three lengths a call (earlier builds) or the calls written out.
  if (typeof t === 'number') return t
  return typeof t[0] === 'number' ? t.length / 3 : t.length
}

/** Both builds on every reply, interleaved in this process (see the top of this file). */
export function twoBuilds(otherDir, rounds) {
  const other = require(resolve(otherDir, 'binding.js'))
  console.log(`\n(d') the same replies, this build against ${resolve(otherDir)}: medians of ${rounds} rounds`)
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  console.log('| 50 KB reply | other: off µs | on µs | on / off | this: off µs | on µs | on / off | this / other, off | this / other, on |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1]
  for (const [name, text] of Object.entries(CASES)) {
    const fns = [other, native].flatMap((b) => ['{"markupInCode":true}', '{}'].map((o) => () => b.cleanResponseJson(text, o)))
    for (const f of fns) assert.equal(callCount(f()), 1)
    const sizes = fns.map((f) => sizeBatch(f))
    const t = fns.map(() => [])
    const ratio = { otherOn: [], thisOn: [], off: [], on: [] }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [3, 2, 1, 0] : [0, 1, 2, 3]
      const us = []
      for (const k of order) us[k] = batch(fns[k], sizes[k])
      us.forEach((u, k) => t[k].push(u))
      ratio.otherOn.push(us[1] / us[0])
      ratio.thisOn.push(us[3] / us[2])
      ratio.off.push(us[2] / us[0])
      ratio.on.push(us[3] / us[1])
    }
    const [oOff, oOn, tOff, tOn] = t.map(med)
    const f = (v) => med(v).toFixed(2)
    console.log(`| ${name} | ${oOff.toFixed(1)} | ${oOn.toFixed(1)} | ${f(ratio.otherOn)} | ${tOff.toFixed(1)} | ${tOn.toFixed(1)} | ${f(ratio.thisOn)} | ${f(ratio.off)} | ${f(ratio.on)} |`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(process.argv[2] ?? 15)
  await run(rounds)
  if (process.argv[3]) twoBuilds(process.argv[3], rounds)
}
