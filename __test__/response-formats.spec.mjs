// Whole-reply specs of cleanResponse for the tool-call formats added after the first part of
// issue #3: each family through the built addon, with text around the calls, parallel calls,
// values holding <, &, newlines and non-ASCII, typing, truncation, and the rule that plain JSON or
// Python is read only when the format or the model names its family.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { cleanResponse } = require('../index.js')

const calls = (r) => r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])
const TRICKY = 'a < b && c > d\n北京 🚀'
const tools = [{
  type: 'function',
  function: { name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' }, exact: { type: 'boolean' } } } },
}]

describe('cleanResponse: auto-detected formats', () => {
  test('seed_oss: reasoning example ignored, values typed from tools', () => {
    const text = '<seed:think>maybe <seed:tool_call><function=x></function></seed:tool_call></seed:think>Searching.\n' +
      '<seed:tool_call>\n<function=search>\n<parameter=q>\n' + TRICKY + '\n</parameter>\n<parameter=n>\n5\n</parameter>\n</function>\n</seed:tool_call>\nDone.'
    const r = cleanResponse(text, { tools })
    assert.equal(r.format, 'seed_oss')
    assert.equal(r.content, 'Searching.\nDone.')
    assert.match(r.reasoning, /<seed:tool_call>/)
    assert.deepEqual(calls(r), [['search', { q: TRICKY, n: 5 }]])
  })

  test('minimax_m1: one JSON object per line', () => {
    const r = cleanResponse('Checking.\n<tool_calls>\n{"name": "a", "arguments": {"x": "<&>"}}\n{"name": "b", "arguments": {}}\n</tool_calls>\nok')
    assert.equal(r.format, 'minimax_m1')
    assert.equal(r.content, 'Checking.\nok')
    assert.deepEqual(calls(r), [['a', { x: '<&>' }], ['b', {}]])
  })

  test('deepseek_v32: DSML with string="true|false"', () => {
    const text = 'Let me check.<｜DSML｜function_calls>\n<｜DSML｜invoke name="search">\n<｜DSML｜parameter name="q" string="true">42</｜DSML｜parameter>\n' +
      '<｜DSML｜parameter name="n" string="false">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'
    const r = cleanResponse(text)
    assert.equal(r.format, 'deepseek_v32')
    assert.equal(r.content, 'Let me check.')
    assert.deepEqual(calls(r), [['search', { q: '42', n: 3 }]])
  })

  test('mistral: array, v11 and v13 forms; 9-character ids', () => {
    const r = cleanResponse('[THINK]plan[/THINK]Sure.[TOOL_CALLS]search[ARGS]{"q": "arr[0] & 東京"}[TOOL_CALLS]search{"n": 2} Then more.')
    assert.equal(r.format, 'mistral')
    assert.equal(r.reasoning, 'plan')
    assert.equal(r.content, 'Sure. Then more.')
    assert.deepEqual(calls(r), [['search', { q: 'arr[0] & 東京' }], ['search', { n: 2 }]])
    for (const c of r.toolCalls) assert.match(c.id, /^[A-Za-z0-9]{9}$/)
    const old = cleanResponse('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}, "id": "abcDEF123"}]')
    assert.equal(old.toolCalls[0].id, 'abcDEF123')
    assert.equal(cleanResponse('The [TOOL_CALLS] token starts calls.').toolCalls.length, 0)
  })

  test('gpt_oss: Harmony channels, analysis is reasoning', () => {
    const text = '<|channel|>analysis<|message|>Need a search.<|end|><|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"q": "' +
      'x < y"}<|call|><|start|>assistant<|channel|>final<|message|>Found it.<|return|>'
    const r = cleanResponse(text)
    assert.equal(r.format, 'gpt_oss')
    assert.equal(r.reasoning, 'Need a search.')
    assert.equal(r.content, 'Found it.')
    assert.deepEqual(calls(r), [['search', { q: 'x < y' }]])
  })

  test('gpt_oss: the stripped form only with the model named', () => {
    const text = 'analysisThinking.assistantcommentary to=functions.search json{"q": "x"}assistantfinalAnswer'
    const r = cleanResponse(text, { model: 'openai/gpt-oss-20b' })
    assert.deepEqual([r.reasoning, r.content, calls(r)], ['Thinking.', 'Answer', [['search', { q: 'x' }]]])
    assert.equal(cleanResponse(text).content, text)
  })

  test('step3: steptml invokes, typed, value with < kept', () => {
    const text = 'reasoning\n</think>\nLooking.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search">' +
      '<steptml:parameter name="q">a < b && b > c</steptml:parameter><steptml:parameter name="n">10</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜> After.'
    // A lone `</think>` is R1-style only when the model (or format) is one that always reasons so.
    const r = cleanResponse(text, { tools, model: 'stepfun-ai/step3' })
    assert.equal(r.format, 'step3')
    assert.equal(r.reasoning, 'reasoning')
    assert.equal(r.content, 'Looking. After.')
    assert.deepEqual(calls(r), [['search', { q: 'a < b && b > c', n: 10 }]])
    // With neither model nor format, a lone tag ending its line near the start ends reasoning the
    // prompt opened; a caller that knows it did not says reasoningOpen: false (the tag is stray).
    const plain = cleanResponse(text, { tools })
    assert.equal(plain.reasoning, 'reasoning')
    const closed = cleanResponse(text, { tools, reasoningOpen: false })
    assert.equal(closed.reasoning, '')
    assert.equal(closed.content, 'reasoning\nLooking. After.')
  })

  test('hunyuan_a13b: array in <tool_calls>, <answer> tags removed', () => {
    const r = cleanResponse('<think>\nplan\n</think>\n<answer>\n好的。<tool_calls>[{"name": "a", "arguments": {"c": "深圳"}}, {"name": "b", "arguments": {}}]</tool_calls>\n</answer>')
    assert.equal(r.format, 'hunyuan_a13b')
    assert.equal(r.content, '好的。')
    assert.deepEqual(calls(r), [['a', { c: '深圳' }], ['b', {}]])
  })

  test('jamba: same grammar, named by the model', () => {
    const r = cleanResponse('<tool_calls>[{"name": "a", "arguments": {}}]</tool_calls>', { model: 'ai21labs/AI21-Jamba-Large-1.7' })
    assert.equal(r.format, 'jamba')
    assert.equal(r.toolCalls.length, 1)
  })

  test('ernie45: Hermes blocks, R1 reasoning, <response> wrapper', () => {
    const r = cleanResponse('thinking\n</think>\n<response>On it.</response>\n<tool_call>\n{"name": "search", "arguments": {"q": "&"}}\n</tool_call>', { model: 'baidu/ERNIE-4.5-21B-A3B-Thinking' })
    assert.equal(r.format, 'ernie45')
    assert.deepEqual([r.reasoning, r.content, calls(r)], ['thinking', 'On it.', [['search', { q: '&' }]]])
  })

  test('longcat, internlm2, gigachat3, granite_20b_fc, phi4_mini', () => {
    const cases = [
      ['longcat', 'A<longcat_tool_call>{"name": "f", "arguments": {"a": "<1>"}}</longcat_tool_call>B'],
      ['internlm2', 'A<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": "<1>"}}<|action_end|>B'],
      ['gigachat3', 'A\nfunction call<|role_sep|>\n{"name": "f", "arguments": {"a": "<1>"}}\nB'],
      ['granite_20b_fc', 'A\n<function_call> {"name": "f", "arguments": {"a": "<1>"}}\nB'],
      ['phi4_mini', 'A functools[{"name": "f", "arguments": {"a": "<1>"}}] B'],
    ]
    for (const [format, text] of cases) {
      const r = cleanResponse(text)
      assert.equal(r.format, format, text)
      assert.deepEqual(calls(r), [['f', { a: '<1>' }]], text)
      assert.match(r.content, /^A\s?B$/, text)
    }
  })

  test('granite: list forms, and prose reasoning with the model named', () => {
    const r = cleanResponse('Sure.<|tool_call|>[{"arguments": {"q": "x"}, "name": "search"}]')
    assert.deepEqual([r.format, r.content, calls(r)], ['granite', 'Sure.', [['search', { q: 'x' }]]])
    const t = "Here's my thought process:\nhmm\nHere is my response:\nHello"
    assert.deepEqual([cleanResponse(t, { model: 'ibm-granite/granite-3.2-8b-instruct' }).reasoning, cleanResponse(t, { model: 'ibm-granite/granite-3.2-8b-instruct' }).content], ['hmm', 'Hello'])
    assert.equal(cleanResponse(t).content, t)
  })
})

describe('cleanResponse: plain JSON and Python formats only when named (or wrapped in their special tokens)', () => {
  // The fifth field: the form is wrapped in the family's own special tokens, which `auto` reads.
  const cases = [
    ['llama3_json', 'meta-llama/Llama-3.1-8B-Instruct', 'Results: <|python_tag|>{"name": "search", "parameters": {"q": "a<b"}}', 'Results:'],
    ['llama3_json', 'meta-llama/Llama-3.3-70B-Instruct', '{"name": "search", "parameters": {"q": "a<b"}}', ''],
    ['pythonic', 'liquid/LFM2-1.2B', 'Calling [search(q="a<b")] now', 'Calling now'],
    ['llama4_pythonic', 'meta-llama/Llama-4-Maverick-17B-128E-Instruct', 'Ok <|python_start|>[search(q=\'a<b\')]<|python_end|>', 'Ok', true],
    ['llama4_pythonic', 'meta-llama/Llama-4-Maverick-17B-128E-Instruct', 'Ok [search(q=\'a<b\')]', 'Ok'],
    ['xlam', 'Salesforce/xLAM-2-32b-fc-r', '```json\n[{"name": "search", "arguments": {"q": "a<b"}}]\n```', ''],
    ['olmo3', 'allenai/Olmo-3-7B-Think', 'Ok\n<function_calls>\nsearch(q="a<b")\n</function_calls>', 'Ok'],
  ]
  for (const [format, model, text, content, auto = false] of cases) {
    test(`${format} (${model}): read when named by format or model${auto ? ', and in auto for its special tokens' : ', never in plain auto'}: ${JSON.stringify(text.slice(0, 24))}`, () => {
      for (const options of [{ format }, { model }]) {
        const r = cleanResponse(text, options)
        assert.equal(r.format, format)
        assert.equal(r.content, content)
        assert.deepEqual(calls(r), [['search', { q: 'a<b' }]])
      }
      const plain = cleanResponse(text)
      if (auto) {
        assert.equal(plain.format, format)
        assert.deepEqual(calls(plain), [['search', { q: 'a<b' }]])
      } else {
        assert.equal(plain.toolCalls.length, 0)
        assert.equal(plain.content, text)
        assert.equal(plain.format, null)
      }
    })
  }

  test('ordinary JSON is not a call even when the family is named', () => {
    const text = 'Config: {"name": "app", "version": 2} and [1, 2, 3]'
    for (const format of ['llama3_json', 'xlam', 'pythonic']) {
      assert.deepEqual(cleanResponse(text, { format }), { content: text, toolCalls: [], reasoning: '', format: null, problems: [], problemKinds: [] })
    }
  })
})

describe('cleanResponse: bad input in the new formats', () => {
  test('truncated calls are removed from the text and reported with it', () => {
    const cases = [
      '<tool_calls>[{"name": "f", "arguments": {"a": ',
      '[TOOL_CALLS]f[ARGS]{"a": "cut',
      'functools[{"name": "f", "argu',
      '<longcat_tool_call>{"na',
    ]
    for (const text of cases) {
      const r = cleanResponse(text)
      assert.equal(r.toolCalls.length, 0, text)
      assert.equal(r.content, '')
      assert.ok(r.problems.some((p) => p.endsWith(`raw text: ${text}`)), text)
    }
  })

  test('malformed JSON arguments are kept as written and reported', () => {
    const r = cleanResponse('<longcat_tool_call>{"name": "f", "arguments": {"a": \'x\'}}</longcat_tool_call>')
    assert.equal(r.toolCalls[0].function.arguments, '{"a": \'x\'}')
    assert.ok(r.problems.length > 0)
  })

  test('a large reply without markers comes back unchanged', () => {
    const big = 'plain words (and braces {}) '.repeat(200_000)
    const r = cleanResponse(big)
    assert.equal(r.content, big)
    assert.equal(r.toolCalls.length, 0)
  })
})
