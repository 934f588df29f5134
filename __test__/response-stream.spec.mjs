import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { rng, streamWhole } from './fixtures/helpers.mjs'
import { readFileSync } from 'node:fs'

const require = createRequire(import.meta.url)
const { cleanResponse, ResponseStreamCleaner } = require('../index.js')
const { samples, adversarial } = JSON.parse(readFileSync(new URL('./fixtures/stream-samples.json', import.meta.url), 'utf8'))

const TOOLS = [
  { type: 'function', function: { name: 'run_code', parameters: { type: 'object', properties: { code: { type: 'string' }, n: { type: 'integer' } } } } },
  { type: 'function', function: { name: 'search', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } } } },
]

/** Split into pieces of 1..max UTF-16 units: cuts may fall inside surrogate pairs and markers. */
function randomSplit(text, rand, max) {
  const out = []
  let at = 0
  while (at < text.length) {
    const n = 1 + Math.floor(rand() * max)
    out.push(text.slice(at, at + n))
    at += n
  }
  return out
}



function assertSameAsWhole(text, options, pieces) {
  assert.deepEqual(streamWhole(pieces, options), cleanResponse(text, options), `pieces: ${JSON.stringify(pieces)} options: ${JSON.stringify(options)}`)
}

describe('ResponseStreamCleaner: any chunking equals cleanResponse on the whole', () => {
  test('every format sample, random splits (1-unit pieces, splits inside markers and surrogate pairs)', () => {
    const rand = rng(20261123)
    for (const { format, model, text } of samples) {
      for (const options of [{ format, tools: TOOLS }, { model: model || undefined, tools: TOOLS }, {}]) {
        for (const max of [1, 2, 3, 5, 17, 40]) assertSameAsWhole(text, options, randomSplit(text, rand, max))
      }
    }
  })

  test('adversarial inputs in every mode, cut at every position', () => {
    const modes = ['extract', 'strip', 'keep']
    for (const text of adversarial) {
      for (const options of [{}, { model: 'deepseek/deepseek-r1' }, { format: 'hermes', toolCalls: 'strip', thinking: 'keep' }, { model: 'qwen/qwen3-coder', thinking: 'strip' }]) {
        for (let i = 1; i < text.length; i++) assertSameAsWhole(text, options, [text.slice(0, i), text.slice(i)])
      }
      for (const toolCalls of modes) for (const thinking of modes) assertSameAsWhole(text, { toolCalls, thinking }, randomSplit(text, rng(text.length), 3))
    }
  })

  test('a surrogate pair split across deltas is rejoined', () => {
    const text = 'a😀b<tool_call>{"name": "f", "arguments": {"e": "🚀"}}</tool_call>😀'
    const pieces = ['a\ud83d', '\ude00b<tool_call>{"name": "f", "arguments": {"e": "\ud83d', '\ude80"}}</tool_call>\ud83d', '\ude00']
    assert.equal(pieces.join(''), text)
    const r = streamWhole(pieces, {})
    assert.equal(r.content, 'a😀b😀')
    assert.deepEqual(JSON.parse(r.toolCalls[0].function.arguments), { e: '🚀' })
    assertSameAsWhole(text, {}, pieces)
  })
})

// Per family: a real-looking reply streamed in small random pieces, with what must come out.
const EXPECTED = {
  hermes: ['Let me look.\nDone! 🚀', 'The user wants two cities; example <tool_call>{"name": "x"}</tool_call> is not a call.', ['get_weather', 'get_weather']],
  qwen3_coder: ["I'll run it.\nWaiting.", '', ['run_code', 'get_time']],
  seed_oss: ['Checking.\nOk.', 'Example: <seed:tool_call><function=x></function></seed:tool_call><seed:cot_budget_reflect>10 used</seed:cot_budget_reflect>', ['get_weather']],
  glm45: ['Checking both.\nOne moment.', 'plan: call get_weather', ['get_weather', 'get_weather']],
  glm47: ['Searching. done', '', ['search', 'refresh_cache']],
  minimax_m1: ['Checking.\nDone.', 'Example: <tool_calls>\n{"name": "x", "arguments": {}}\n</tool_calls>', ['get_current_weather', 'get_current_weather']],
  minimax_m2: ['让我帮你查询。\n稍等。', 'The user wants weather, maybe <minimax:tool_call> later.', ['get_weather', 'get_time']],
  deepseek_v3: ['OK', 'Need weather for two cities.', ['get_weather', 'get_weather']],
  deepseek_v31: ['Let me check. then more', 'plan', ['get_weather', 'get_time']],
  deepseek_v32: ['Let me check that.\nDone.', '', ['get_weather', 'now']],
  kimi_k2: ['Sure.\nWaiting.', 'two calls', ['get_weather', 'get_weather']],
  llama3_json: ['Here are some results:', '', ['search', 'now']],
  pythonic: ['Let me check.\nThese will help.', '', ['get_weather', 'get_time']],
  llama4_pythonic: ["I'll run the calculations.\n\nThese functions will help.", '', ['calc', 'lookup']],
  mistral: ['Checking.', 'The user wants weather [TOOL_CALLS]x{}', ['get_weather', 'get_time']],
  gpt_oss: ['', 'Need to read files. Maybe to=functions.x', ['read_file']],
  step3: ['Searching now.\nResults follow.', 'I should search.', ['search', 'search']],
  hunyuan_a13b: ['好的。', '用户要天气', ['get_weather', 'get_weather']],
  ernie45: ['我来查询。', 'The user wants weather; example <tool_call>{"name": "x"}</tool_call>', ['get_weather', 'get_time']],
  longcat: ['我来查。\n稍等。', '', ['get_weather', 'get_time']],
  internlm2: ['Let me check.\nOne moment.', '', ['get_weather']],
  phi4_mini: ["I'll check.", '', ['get_weather', 'now']],
  granite: ['Sure.', 'I need the weather <tool_call>{"name": "x"}</tool_call>.', ['search', 'now']],
  granite_20b_fc: ['Looking up both.', '', ['get_weather', 'get_weather']],
  xlam: ['Calling:', 'use both', ['get_weather', 'now']],
  jamba: ["Sure.\nThen I'll summarise.", '', ['get_weather', 'now']],
  olmo3: ['Let me look.\nBack soon.', '', ['get_weather', 'search']],
  gigachat3: ['Сейчас проверю.\nГотово.', '', ['get_weather']],
}

describe('ResponseStreamCleaner per family (model named, streamed in small pieces)', () => {
  const rand = rng(7)
  for (const { format, model, text } of samples) {
    test(format, () => {
      const [content, reasoning, names] = EXPECTED[format]
      const r = streamWhole(randomSplit(text, rand, 4), { model, tools: TOOLS })
      assert.equal(r.content, content)
      assert.equal(r.reasoning, reasoning)
      assert.deepEqual(r.toolCalls.map((c) => c.function.name), names)
      assert.equal(r.format, format)
      for (const c of r.toolCalls) assert.equal(typeof JSON.parse(c.function.arguments), 'object')
    })
  }
})

describe('ResponseStreamCleaner behaviour', () => {
  test('lone surrogates: held only while their pair may still come, then kept exactly as cleanResponse keeps them', () => {
    for (const text of ['a\ud83d', 'a\ud83d<think>x</think>b', '\ude00x\ud83d\ud83dy', 'x\ud83d<tool_call>{"name": "f", "arguments": {}}</tool_call>']) {
      for (let i = 1; i < text.length; i++) assertSameAsWhole(text, {}, [text.slice(0, i), text.slice(i)])
      assertSameAsWhole(text, {}, text.split(''))
    }
    assert.equal(streamWhole(['a\ud83d', 'b\ude00'], {}).content, 'a\ud83db\ude00')
    const r = streamWhole(['<think>r\udc00</think>x\ud800 ', '<tool_call>{"name": "f", "arguments": {"q": "\udbff"}}</tool_call>'], {})
    assert.equal(r.content, 'x\ud800')
    assert.equal(r.reasoning, 'r\udc00')
    assert.equal(JSON.parse(r.toolCalls[0].function.arguments).q, '\udbff')
    // A private-use character of the first candidate block before the first lone surrogate.
    assert.equal(streamWhole(['\u{100000}', 'a\ud83d', 'b'], {}).content, '\u{100000}a\ud83db')
  })

  test('a 2 MB reply with calls and reasoning, in 64 KB deltas', () => {
    const unit = '<think>plan a < b</think>Looking.\n<tool_call>\n{"name": "f", "arguments": {"q": "北京 <&>"}}\n</tool_call>\nDone 🚀 '
    const text = unit.repeat(Math.ceil(2e6 / unit.length))
    const pieces = []
    for (let i = 0; i < text.length; i += 65536) pieces.push(text.slice(i, i + 65536))
    const r = streamWhole(pieces, {})
    const whole = cleanResponse(text)
    assert.equal(r.toolCalls.length, whole.toolCalls.length)
    assert.ok(r.toolCalls.length > 10000)
    assert.deepEqual(r, whole)
  })

  test('visible text comes out with the delta that completes it; a partial marker is held back', () => {
    // A model is named: with neither model nor format the reply's first 1,024 bytes may be
    // reasoning the prompt opened, and are held back until that is known.
    const s = new ResponseStreamCleaner({ model: 'openai/gpt-4o' })
    assert.equal(s.push('Hello wor').content, 'Hello wor')
    assert.equal(s.push('ld <minimax:tool_c').content, 'ld')
    assert.deepEqual(s.push('all><invoke name="f"><parameter name="a">1</parameter></invoke>'), { content: '', reasoning: '', toolCalls: [] })
    const c = s.push('</minimax:tool_call> after')
    assert.equal(c.content, ' after')
    assert.equal(c.toolCalls.length, 1)
    assert.deepEqual(c.toolCalls[0].function, { name: 'f', arguments: '{"a":1}' })
    assert.deepEqual(s.finish(), { content: '', reasoning: '', toolCalls: [], format: 'minimax_m2', problems: [], problemKinds: [] })
  })

  test('reasoning streams as it comes; blocks are joined by a blank line', () => {
    const s = new ResponseStreamCleaner({})
    assert.equal(s.push('<think>\n step one ').reasoning, 'step one')
    assert.equal(s.push(' two </thi').reasoning, '  two')
    const c = s.push('nk><think>again</think>Hi')
    assert.equal(c.content, 'Hi')
    assert.equal(c.reasoning, '\n\nagain')
  })

  test('ids match cleanResponse, Kimi keeps its own', () => {
    const text = samples.find((x) => x.format === 'kimi_k2').text
    const r = streamWhole(randomSplit(text, rng(3), 6), {})
    assert.deepEqual(r.toolCalls.map((c) => c.id), ['functions.get_weather:0', 'functions.get_weather:1'])
    const h = '<tool_call>{"name": "x", "arguments": {}}</tool_call>'
    assert.equal(streamWhole([h.slice(0, 5), h.slice(5)], {}).toolCalls[0].id, cleanResponse(h).toolCalls[0].id)
  })

  test('a truncated call is flushed by finish() and reported', () => {
    const text = 'Sure.\n<minimax:tool_call><invoke name="f"><parameter name="a">北京</parameter>'
    const s = new ResponseStreamCleaner({ model: 'minimax/MiniMax-M1' })
    assert.equal(s.push(text).content, 'Sure.')
    const end = s.finish()
    assert.equal(end.format, 'minimax_m2')
    assert.deepEqual(end.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [['f', { a: '北京' }]])
    assert.ok(end.problems.length > 0)
    const whole = cleanResponse(text, { model: 'minimax/MiniMax-M1' })
    assert.deepEqual({ ...end, content: 'Sure.' + end.content }, whole)
  })

  test('bad arguments and use after finish give clear errors', () => {
    assert.throws(() => new ResponseStreamCleaner(5), { name: 'TypeError', message: /^options: expected an object/ })
    assert.throws(() => new ResponseStreamCleaner({ thinking: 'maybe' }), { name: 'TypeError', message: /options\.thinking/ })
    assert.throws(() => new ResponseStreamCleaner({ tools: {} }), { name: 'TypeError', message: /options\.tools/ })
    const s = new ResponseStreamCleaner()
    assert.throws(() => s.push(42), { name: 'TypeError', message: 'delta: expected a string, got number' })
    assert.throws(() => s.push(null), { name: 'TypeError', message: 'delta: expected a string, got null' })
    s.finish()
    assert.throws(() => s.push('x'), /finished; push\(\) and finish\(\) cannot be called after finish\(\)/)
    assert.throws(() => s.finish(), /finished/)
  })

  test('an empty delta and an empty reply', () => {
    const s = new ResponseStreamCleaner()
    assert.deepEqual(s.push(''), { content: '', reasoning: '', toolCalls: [] })
    assert.deepEqual(s.finish(), { content: '', reasoning: '', toolCalls: [], format: null, problems: [], problemKinds: [] })
  })
})
