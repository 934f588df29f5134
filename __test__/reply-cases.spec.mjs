// The reply-case table (__test__/fixtures/replies/*.jsonl, described in its README) through the
// package as a user calls it: cleanResponse on the whole reply, and ResponseStreamCleaner under
// several chunkings in UTF-16 units (cuts inside markers, code spans and surrogate pairs), each
// equal to the whole. The Rust runner (src/response/cases.rs) runs the same files.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
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

function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

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

function stream(pieces, options) {
  const s = new ResponseStreamCleaner(options)
  let content = ''
  let reasoning = ''
  const toolCalls = []
  for (const p of pieces) {
    const c = s.push(p)
    content += c.content
    reasoning += c.reasoning
    toolCalls.push(...c.toolCalls)
  }
  const end = s.finish()
  return { content: content + end.content, toolCalls: toolCalls.concat(end.toolCalls), reasoning: reasoning + end.reasoning, format: end.format, problems: end.problems, problemKinds: end.problemKinds }
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
      for (const pieces of chunkings(c.input, n + 1)) assert.deepEqual(stream(pieces, c.options), whole, `streamed in ${pieces.length} pieces`)
    })
  })
})
