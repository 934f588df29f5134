// The reply-case table (__test__/fixtures/replies/*.jsonl, described in its README) through the
// package as a user calls it: cleanResponse on the whole reply, and ResponseStreamCleaner under
// several chunkings in UTF-16 units (cuts inside markers, code spans and surrogate pairs), each
// equal to the whole. The Rust runner (src/response/cases.rs) runs the same files.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { rng, streamWhole } from './fixtures/helpers.mjs'
import { readFileSync, readdirSync } from 'node:fs'

const require = createRequire(import.meta.url)
const { cleanResponse, ResponseStreamCleaner } = require('../index.js')

const DIR = new URL('./fixtures/replies/', import.meta.url)
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .flatMap((f) =>
    readFileSync(new URL(f, DIR), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l)),
  )

function chunkings(text, seed) {
  const out = [Array.from({ length: text.length }, (_, i) => text[i])]
  const rand = rng(seed)
  for (const max of [2, 3, 7, 31]) {
    const pieces = []
    for (let at = 0; at < text.length; ) {
      const n = 1 + Math.floor(rand() * max)
      pieces.push(text.slice(at, at + n))
      at += n
    }
    out.push(pieces)
  }
  return out
}



function expectCase(c, r) {
  const content = c.unchanged ? c.input : c.content
  if (content !== undefined) assert.equal(r.content, content, 'content')
  assert.equal(r.reasoning, c.reasoning ?? '', 'reasoning')
  const want = c.calls ?? []
  const got = r.toolCalls.map((t, i) => {
    let args
    try {
      args = JSON.parse(t.function.arguments)
    } catch {
      args = t.function.arguments
    }
    const o = { name: t.function.name, arguments: args }
    if (want[i] && 'id' in want[i]) o.id = t.id
    return o
  })
  assert.deepEqual(got, want.map((w) => ('id' in w ? { name: w.name, arguments: w.arguments, id: w.id } : w)), 'calls')
  assert.deepEqual(r.problemKinds, c.problems ?? [], `problems ${JSON.stringify(r.problems)}`)
  if (c.unchanged) assert.equal(r.format, null, 'format of a negative')
}

describe('reply cases through cleanResponse and ResponseStreamCleaner', () => {
  test('the table has cases', () => assert.ok(cases.length > 0))
  cases.forEach((c, n) => {
    test(c.name, () => {
      const whole = cleanResponse(c.input, c.options)
      expectCase(c, whole)
      for (const pieces of chunkings(c.input, n + 1)) assert.deepEqual(streamWhole(pieces, c.options), whole, `streamed in ${pieces.length} pieces`)
    })
  })
})

// Generated: prose (Chinese and English) with every family's markup only inside inline code or
// fenced blocks comes back unchanged, whole and streamed (cuts in UTF-16 units).
const PROSE = ['这是一个解释。', '模型的输出格式如下：', 'Here is how the template writes it:', '请注意 a < b 与 [1, 2] 的区别，', 'so the parser must skip it.', 'If x > 3 then { y }.']
const MARKUP = [
  '<think>先想</think>',
  '</think>',
  '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
  '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>',
  '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>',
  '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">天气</parameter>\n</invoke>\n</minimax:tool_call>',
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>',
  '[TOOL_CALLS][{"name": "f", "arguments": {}}]',
  '<|channel|>analysis<|message|>hmm<|end|>',
  '[THINK]x[/THINK] 😀',
]
const LANGS = ['', 'xml', 'json', 'python']

test('generated: markup only inside code comes back unchanged, whole and streamed', () => {
  const rand = rng(20261125)
  const pick = (a) => a[Math.floor(rand() * a.length)]
  for (let n = 0; n < 200; n++) {
    let text = pick(PROSE)
    const parts = 1 + Math.floor(rand() * 5)
    for (let k = 0; k < parts; k++) {
      const r = rand()
      if (r < 0.3) text += pick(PROSE)
      else if (r < 0.65) {
        const ticks = rand() < 0.5 ? '`' : '``'
        text += ` ${ticks}${pick(MARKUP)}${ticks} `
      } else {
        const f = rand() < 0.8 ? '```' : '~~~'
        text += `\n${f}${pick(LANGS)}\n${pick(MARKUP)}\n${f}\n`
      }
    }
    const whole = cleanResponse(text)
    assert.equal(whole.content, text, JSON.stringify(text))
    assert.deepEqual([whole.toolCalls, whole.reasoning, whole.format], [[], '', null])
    assert.ok(whole.problemKinds.every((k) => k === 'kept-as-code'))
    for (const pieces of chunkings(text, n + 1000)) assert.deepEqual(streamWhole(pieces, undefined), whole)
  }
})
