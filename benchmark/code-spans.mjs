// What the code-span and fence tracking costs cleanResponse, in one process and one build: the
// same native call with the tracking on (the default) and off (`markupInCode: true`, a switch
// only the benchmark passes to the native `cleanResponseJson`; the JS options do not offer it),
// on 50 KB replies with a <think> block and one MiniMax call: prose with inline code spans and
// fenced examples, and prose with neither, ASCII and half Chinese. Interleaved CPU-time rounds
// (see benchmark/reply-vs-openclaw.mjs).
//   node benchmark/code-spans.mjs [rounds]
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'
import os from 'node:os'
import { sideBySide } from './reply-vs-openclaw.mjs'

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
    // One call: three lengths (id, name, arguments) in the result's flat `toolCalls`.
    for (const o of [ON, OFF]) assert.equal(JSON.parse(native.cleanResponseJson(text, o).json).toolCalls.length, 3)
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

if (import.meta.url === `file://${process.argv[1]}`) await run(Number(process.argv[2] ?? 15))
