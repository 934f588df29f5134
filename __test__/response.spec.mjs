import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { cleanResponse, ResponseStreamCleaner } = require('../index.js')

describe('cleanResponse', () => {
  test('each of many tool sets, used in turn, reads its own tools (options kept natively by number)', () => {
    const sets = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: 6 }, (_, j) => ({ type: 'function', function: { name: `t${i}_${j}`, description: '工具说明 '.repeat(20), parameters: { type: 'object', properties: { q: { type: 'string' } } } } })),
    )
    const check = (clean, i, why) => {
      const mine = clean(`好的。t${i}_2{"q": "北京"}`, { tools: sets[i] })
      assert.deepEqual(mine.toolCalls.map((c) => [c.function.name, c.function.arguments]), [[`t${i}_2`, '{"q":"北京"}']], `set ${i}: ${why}`)
      const other = `好的。t${(i + 1) % sets.length}_2{"q": "北京"}`
      assert.equal(clean(other, { tools: sets[i] }).content, other, `set ${i} does not read set ${i + 1}'s tool: ${why}`)
    }
    // More sets than the eight a thread keeps, in turn.
    for (let round = 0; round < 3; round++) for (let i = 0; i < sets.length; i++) check(cleanResponse, i, `round ${round}`)
    // A second copy of the wrapper in this thread (a bundler's duplicate, a cleared require cache)
    // keeps its own eight, evicting the number the first copy holds for set 0: the first copy
    // finds it missing and keeps the options again.
    const path = require.resolve('../js/response.js')
    const saved = require.cache[path]
    delete require.cache[path]
    const second = require('../js/response.js').cleanResponse
    require.cache[path] = saved
    check(cleanResponse, 0, 'kept by the first copy')
    for (let i = 1; i <= 8; i++) check(second, i, 'kept by the second copy')
    check(cleanResponse, 0, 'its number evicted by the second copy')
  })

  test('a reply without markup comes back as it is', () => {
    const r = cleanResponse('Plain answer with {"json": true} and <b>html</b>.')
    assert.deepEqual(r, { content: 'Plain answer with {"json": true} and <b>html</b>.', toolCalls: [], reasoning: '', format: null, problems: [], problemKinds: [] })
  })

  test('hermes calls become OpenAI tool calls, text around them is kept', () => {
    const r = cleanResponse('Let me look.\n<tool_call>\n{"name": "read", "arguments": {"path": "a<b>&c"}}\n</tool_call>')
    assert.equal(r.content, 'Let me look.')
    assert.equal(r.format, 'hermes')
    assert.equal(r.toolCalls.length, 1)
    assert.equal(r.toolCalls[0].type, 'function')
    assert.equal(r.toolCalls[0].function.name, 'read')
    assert.deepEqual(JSON.parse(r.toolCalls[0].function.arguments), { path: 'a<b>&c' })
    assert.match(r.toolCalls[0].id, /^call_0_[0-9a-f]{8}$/)
  })

  test('ids are deterministic', () => {
    const text = '<tool_call>{"name": "x", "arguments": {}}</tool_call>'
    assert.equal(cleanResponse(text).toolCalls[0].id, cleanResponse(text).toolCalls[0].id)
  })

  test('minimax_m2 parameters are typed from the tools schema', () => {
    const tools = [{ type: 'function', function: { name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } } } } }]
    const text = '<think>plan</think>Searching.<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">北京 weather</parameter>\n<parameter name="n">3</parameter>\n</invoke>\n</minimax:tool_call>'
    const r = cleanResponse(text, { tools })
    assert.equal(r.reasoning.trim(), 'plan')
    assert.equal(r.content, 'Searching.')
    assert.deepEqual(JSON.parse(r.toolCalls[0].function.arguments), { q: '北京 weather', n: 3 })
  })

  test('a call written inside reasoning is run only when none is written outside it', () => {
    const inner = '<think>maybe <tool_call>{"name": "x", "arguments": {}}</tool_call></think>'
    const outside = cleanResponse(`${inner}<tool_call>{"name": "y", "arguments": {}}</tool_call>`)
    assert.deepEqual(outside.toolCalls.map((c) => c.function.name), ['y'])
    const only = cleanResponse(`${inner}Done.`)
    assert.deepEqual([only.toolCalls.map((c) => c.function.name), only.content, only.problemKinds], [['x'], 'Done.', ['call-in-reasoning']])
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]
    assert.equal(cleanResponse(`${inner}Done.`, { tools }).toolCalls.length, 0, 'x is not an offered tool')
  })

  test('toolCalls: strip removes calls, keep leaves the text alone', () => {
    const text = 'A<tool_call>{"name": "x", "arguments": {}}</tool_call>'
    assert.deepEqual(cleanResponse(text, { toolCalls: 'strip' }).toolCalls, [])
    assert.equal(cleanResponse(text, { toolCalls: 'strip' }).content, 'A')
    assert.equal(cleanResponse(text, { toolCalls: 'keep' }).content, text)
  })

  test('malformed JSON arguments are kept as text and reported, not dropped', () => {
    const r = cleanResponse('<tool_call>{"name": "x", "arguments": {"a": }</tool_call>')
    assert.ok(r.problems.length > 0)
    assert.ok(r.toolCalls.length === 1 || r.content.includes('"a"'))
  })

  test('bad input gives a TypeError naming what was expected', () => {
    assert.throws(() => cleanResponse(null), (e) => e instanceof TypeError && /content: expected a string/.test(e.message))
    assert.throws(() => cleanResponse('x', { toolCalls: 'drop' }), (e) => e instanceof TypeError && /options\.toolCalls/.test(e.message))
    assert.throws(() => cleanResponse('x', 5), TypeError)
  })

  test('structuredToolCalls: a wrong shape is a TypeError naming it; the input is not changed', () => {
    for (const [v, m] of [
      [5, /^options\.structuredToolCalls: expected an array/],
      [[{}], /^options\.structuredToolCalls\[0\]: expected a tool call with a string name/],
      [[null], /^options\.structuredToolCalls\[0\]: expected a tool call object/],
    ]) {
      assert.throws(() => cleanResponse('x', { structuredToolCalls: v }), { name: 'TypeError', message: m })
      assert.throws(() => new ResponseStreamCleaner({ structuredToolCalls: v }), { name: 'TypeError', message: m })
    }
    const structured = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }]
    const copy = JSON.stringify(structured)
    const r = cleanResponse('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', { structuredToolCalls: structured })
    assert.deepEqual([r.content, r.toolCalls], ['', []])
    assert.equal(JSON.stringify(structured), copy)
  })

  test('lone surrogates and a 10 MB reply do not crash', () => {
    assert.equal(typeof cleanResponse('a\ud800b<tool_call>').content, 'string')
    const big = 'x'.repeat(10 * 1024 * 1024) + '<tool_call>{"name": "x", "arguments": {}}</tool_call>'
    const r = cleanResponse(big)
    assert.equal(r.toolCalls.length, 1)
    assert.equal(r.content.length, 10 * 1024 * 1024)
  })
})
