// The skeleton's codes cross as a Uint32Array and only the numbers values hold (a timestamp, an id
// that is a number, a usage's counts and cost) as a Float64Array (js/codec.js, `reals`). A number
// that is not an exact u32 (-0, 2^32, 1.5, NaN, a millisecond timestamp) must still arrive as
// itself: written into the code channel it would arrive as 0, 0, 1, 0 and a wrapped timestamp.
// These check the channels against the values, and what the pass answers for them against what
// the single f64 channel gave (main 9fbfdb8, measured once: see the expected column).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { th } from './fixtures/helpers.mjs'

const require = createRequire(import.meta.url)
const codec = require('../js/codec.js')

th.setOpenClawVersion('2026.3.23')

// [number, the timestamp a synthetic tool result stamped with it carries (JSON's view: -0 is 0,
// NaN and Infinity are null)]
const ODD = [
  [-0, 0],
  [2 ** 32, 2 ** 32],
  [2 ** 32 + 1, 2 ** 32 + 1],
  [1.5, 1.5],
  [NaN, null],
  [1767225600123, 1767225600123],
  [-1, -1],
  [Infinity, null],
  [2 ** 53 + 2, 2 ** 53 + 2],
]

const same = (a, b) => Object.is(a, b)

test('a number a value holds crosses in reals as itself, its code 7 in codes', () => {
  for (const [x] of ODD) {
    const k = codec.encode([{ role: 'user', content: '问', timestamp: x }])
    assert.ok(k.codes instanceof Uint32Array && k.reals instanceof Float64Array)
    assert.equal(k.reals.length, 1, String(x))
    assert.ok(same(k.reals[0], x), `${x} arrived as ${k.reals[0]}`)
    assert.ok(Array.from(k.codes).includes(7), String(x))
    // An id that is a number, and a value deep in a usage that is not in the normalised shape.
    const call = { type: 'toolCall', id: x, name: 'read', arguments: {} }
    const usage = { input_tokens: x, nested: { v: x } }
    const k2 = codec.encode([{ role: 'assistant', content: [call], usage }])
    assert.deepEqual(Array.from(k2.reals).map(String), [x, x, x].map(String))
    assert.ok(Array.from(k2.reals).every((v) => same(v, x)), String(x))
  }
})

test("a normalised usage's numbers cross in reals, bit for bit, in key order", () => {
  const counts = [-0, 2 ** 32, 1.5, 0, 2 ** 32 + 0.5]
  const costs = [1.5, -0, 0.1, 2 ** 40, 1e-300]
  const usage = { input: counts[0], output: counts[1], cacheRead: counts[2], cacheWrite: counts[3], totalTokens: counts[4] }
  const k = codec.encode([{ role: 'assistant', content: [], usage }])
  assert.equal(k.reals.length, 5)
  counts.forEach((x, i) => assert.ok(same(k.reals[i], x), `count ${i}: ${x} arrived as ${k.reals[i]}`))
  const cost = { input: costs[0], output: costs[1], cacheRead: costs[2], cacheWrite: costs[3], total: costs[4] }
  const k2 = codec.encode([{ role: 'assistant', content: [], usage: { ...usage, cost } }])
  const all = [...counts, ...costs]
  assert.equal(k2.reals.length, 10)
  all.forEach((x, i) => assert.ok(same(k2.reals[i], x), `number ${i}: ${x} arrived as ${k2.reals[i]}`))
})

test('codes are small integers; a count past what a code holds is not sent as one', () => {
  const messages = [
    { role: 'assistant', content: [{ type: 'text', text: '答'.repeat(70000) }], stopReason: 'stop', timestamp: 2 ** 33 },
    { role: 'user', content: 'x'.repeat(5), timestamp: -0 },
  ]
  const k = codec.encode(messages)
  // Text lengths go as codes (70000 fits); the timestamps as reals.
  assert.ok(Array.from(k.codes).includes(70000))
  assert.deepEqual(Array.from(k.reals).map((v) => (Object.is(v, -0) ? '-0' : String(v))), [String(2 ** 33), '-0'])
})

test('the synthetic result for an open call carries the assistant timestamp as before, whatever number it is', () => {
  for (const version of ['2026.3.23', '2026.9.6']) {
    for (const [x, want] of ODD) {
      const messages = [
        { role: 'user', content: '读取文件', timestamp: 1 },
        { role: 'assistant', content: [{ type: 'toolCall', id: 'call1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: x },
        { role: 'user', content: '继续', timestamp: 3 },
      ]
      const out = th.sanitizeSessionHistory({ messages, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', openclawVersion: version })
      const r = out.find((m) => m.role === 'toolResult')
      assert.ok(r !== undefined, `${version} ${x}`)
      assert.ok(same(r.timestamp, want), `${version} ${x}: ${r.timestamp}`)
      // Its twin: a call with its result stays as written, the very same messages.
      const answered = [messages[0], messages[1], { role: 'toolResult', toolCallId: 'call1', toolName: 'read', content: [{ type: 'text', text: '内容' }], timestamp: x }, messages[2]]
      const kept = th.sanitizeSessionHistory({ messages: answered, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', openclawVersion: version })
      assert.equal(kept[2], answered[2], `${version} ${x}`)
    }
  }
})
