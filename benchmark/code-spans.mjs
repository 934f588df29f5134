// Cost of the code-span and fence tracking in cleanResponse, side by side in one process: the
// addon built from this tree against an addon built before the tracking (path in BEFORE_ADDON,
// e.g. a build of main), both called through their native `cleanResponseJson`, on 50 KB replies,
// ASCII and half Chinese: prose with inline code and fenced examples holding markup, a <think>
// block and one MiniMax call; and prose with neither code nor markup. Best of several rounds.
//   BEFORE_ADDON=/path/to/old.node node benchmark/code-spans.mjs
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'

const require = createRequire(import.meta.url)
const after = require('../binding.js')
const beforePath = process.env.BEFORE_ADDON
if (!beforePath) throw new Error('set BEFORE_ADDON to the .node file to compare against')
const before = require(beforePath)

function best(fn, rounds = 7, minMs = 150) {
  for (let i = 0; i < 5; i++) fn()
  let bestUs = Infinity
  for (let r = 0; r < rounds; r++) {
    let n = 0
    const start = process.hrtime.bigint()
    let elapsed = 0
    while (elapsed < minMs * 1e6 || n < 3) {
      fn()
      n++
      elapsed = Number(process.hrtime.bigint() - start)
    }
    bestUs = Math.min(bestUs, elapsed / n / 1000)
  }
  return bestUs
}

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
const cases = {
  'ASCII, code + markup': reply(en, true),
  'half Chinese, code + markup': reply(en + zh, true),
  'ASCII, no code': reply(en.replace(/`/g, ''), false),
  'half Chinese, no code': reply((en + zh).replace(/`/g, ''), false),
}
console.log('| 50 KB reply | before µs | after µs | after / before |')
console.log('| --- | --- | --- | --- |')
for (const [name, text] of Object.entries(cases)) {
  const a = JSON.parse(after.cleanResponseJson(text, '{}').json)
  const b = JSON.parse(before.cleanResponseJson(text, '{}').json)
  assert.equal(a.toolCalls.length, 1)
  assert.equal(b.toolCalls.length, 1)
  const tb = best(() => before.cleanResponseJson(text, '{}'))
  const ta = best(() => after.cleanResponseJson(text, '{}'))
  console.log(`| ${name} | ${tb.toFixed(1)} | ${ta.toFixed(1)} | ${(ta / tb).toFixed(2)} |`)
}
