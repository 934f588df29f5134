// transcript-hygiene/ai-sdk inside the AI SDK itself: `generateText` / `streamText` drive the
// middleware around the SDK's own test double (MockLanguageModelV3 from `ai/test`), and a call
// recovered from the reply's text must be run by the SDK's tool loop. The replies are cases of the
// reply table (__test__/fixtures/replies/, each with its source): Chinese GLM, Qwen and MiniMax
// replies, and their twins that must come back as written and run nothing.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { replyCases } from './fixtures/helpers.mjs'
import { createRequire } from 'node:module'
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { toolCallRecovery, transcriptHygiene } from 'transcript-hygiene/ai-sdk'

const require = createRequire(import.meta.url)
const cjs = require('transcript-hygiene/ai-sdk')
const { cleanResponse } = require('transcript-hygiene')

const CASES = replyCases()

// Replies that hold calls (real ones first) and twins that hold none.
const POSITIVE = [
  'rtp-llm-525-glm-hangzhou-zh', // GLM-4.5, real
  'qwen3-vl-1674-hermes-hangzhou-zh', // Qwen3-VL, real
  'minimax-m3-namespaced-call-zh', // MiniMax-M3, real
  'minimax-m25-10-exec-ls', // MiniMax-M2.5, real
  'glm-parallel-with-reasoning-and-typing', // GLM: reasoning, text, two calls, text
  'minimax-m2-invoke-without-wrapper', // MiniMax-M2: text, call, text
]
const NEGATIVE = [
  'minimax-m3-call-in-inline-code-stays',
  'fence-example-between-prose-minimax',
  'bare-json-call-in-inline-code-stays-zh',
  'gemini-balance-think-tags-in-inline-code', // real
  'vllm-ascend-minimax-m3-xml-leak-report', // real
  'glm4-tools-name-args-reply', // real
]

const USAGE = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const STOP = { unified: 'stop', raw: 'stop' }
const FINAL = '好的，结果已经拿到了。'

/** The reply as stream parts: one text part cut into pieces of 1 to 4 UTF-16 units. */
function streamParts(text, id = 'txt-0') {
  const parts = [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', id: 'resp-1', modelId: 'm' }, { type: 'text-start', id }]
  for (let at = 0, n = 1; at < text.length; at += n, n = (n % 4) + 1) parts.push({ type: 'text-delta', id, delta: text.slice(at, at + n) })
  parts.push({ type: 'text-end', id }, { type: 'finish', finishReason: STOP, usage: USAGE })
  return parts
}

/** A mock model answering `replies` in turn, whole (doGenerate) or as a stream (doStream). */
function mockModel(replies, modelId) {
  let n = 0
  return new MockLanguageModelV3({
    provider: 'mock.chat',
    modelId,
    doGenerate: async () => ({ content: [{ type: 'text', text: replies[n++] }], finishReason: STOP, usage: USAGE, warnings: [] }),
    doStream: async () => ({ stream: convertArrayToReadableStream(streamParts(replies[n++])) }),
  })
}

/** Tools for a case: its own schemas, plus one per expected call; `ran` records what the SDK ran. */
function toolsFor(c, ran) {
  const schemas = new Map((c.options?.tools ?? []).map((t) => [t.function.name, t.function.parameters]))
  for (const call of c.calls ?? []) if (!schemas.has(call.name)) schemas.set(call.name, { type: 'object' })
  for (const name of ['get_weather', 'read_file', 'search']) if (!schemas.has(name)) schemas.set(name, { type: 'object' })
  const tools = {}
  for (const [name, schema] of schemas) {
    tools[name] = tool({ inputSchema: jsonSchema(schema), execute: async (input) => (ran.push({ name, arguments: input }), { ok: true }) })
  }
  return tools
}

const expectedReasoning = (c) => c.reasoning ?? ''
const modelIdOf = (c) => c.options?.model ?? 'test-model'

describe('toolCallRecovery in generateText', () => {
  for (const name of POSITIVE) {
    test(`${name}: the recovered calls are run by the tool loop`, async () => {
      const c = CASES.get(name)
      const ran = []
      const model = wrapLanguageModel({ model: mockModel([c.input, FINAL], modelIdOf(c)), middleware: toolCallRecovery() })
      const r = await generateText({ model, tools: toolsFor(c, ran), prompt: '查一下', stopWhen: stepCountIs(3) })
      assert.deepEqual(ran, c.calls)
      const [first, second] = r.steps
      assert.equal(first.finishReason, 'tool-calls')
      assert.equal(first.text, c.content)
      assert.equal(first.reasoningText ?? '', expectedReasoning(c))
      assert.equal(first.toolResults.length, c.calls.length)
      assert.equal(first.providerMetadata?.transcriptHygiene?.format, cleanResponse(c.input, { ...c.options, model: modelIdOf(c) }).format)
      assert.equal(second.text, FINAL)
      assert.equal(r.text, FINAL)
    })
  }
  for (const name of NEGATIVE) {
    test(`${name}: comes back as written and runs nothing`, async () => {
      const c = CASES.get(name)
      const ran = []
      const model = wrapLanguageModel({ model: mockModel([c.input], modelIdOf(c)), middleware: toolCallRecovery() })
      const r = await generateText({ model, tools: toolsFor(c, ran), prompt: '查一下', stopWhen: stepCountIs(3) })
      assert.deepEqual(ran, [])
      assert.equal(r.steps.length, 1)
      assert.equal(r.text, c.input)
      assert.equal(r.finishReason, 'stop')
    })
  }
})

describe('toolCallRecovery in streamText', () => {
  for (const name of POSITIVE) {
    test(`${name}: streamed, the calls are run and the text and reasoning are the whole reply's`, async () => {
      const c = CASES.get(name)
      const ran = []
      const model = wrapLanguageModel({ model: mockModel([c.input, FINAL], modelIdOf(c)), middleware: toolCallRecovery() })
      const r = streamText({ model, tools: toolsFor(c, ran), prompt: '查一下', stopWhen: stepCountIs(3) })
      const types = []
      for await (const p of r.fullStream) types.push(p.type)
      const steps = await r.steps
      assert.deepEqual(ran, c.calls)
      assert.equal(steps[0].text, c.content)
      assert.equal(steps[0].reasoningText ?? '', expectedReasoning(c))
      assert.equal(steps[0].finishReason, 'tool-calls')
      assert.equal(await r.text, FINAL)
      assert.ok(!types.includes('error'), types.join(' '))
    })
  }
  for (const name of NEGATIVE) {
    test(`${name}: streamed, comes back as written and runs nothing`, async () => {
      const c = CASES.get(name)
      const ran = []
      const model = wrapLanguageModel({ model: mockModel([c.input], modelIdOf(c)), middleware: toolCallRecovery() })
      const r = streamText({ model, tools: toolsFor(c, ran), prompt: '查一下', stopWhen: stepCountIs(3) })
      assert.equal(await r.text, c.input)
      assert.deepEqual(ran, [])
      assert.equal(await r.finishReason, 'stop')
    })
  }
})

describe('toolCallRecovery: the middleware contract', () => {
  const params = { prompt: [], tools: [{ type: 'function', name: 'read_file', inputSchema: { type: 'object' } }] }
  const model = { provider: 'mock.chat', modelId: 'MiniMax-M2' }

  test('a reply without markup is the very same result object', async () => {
    const result = { content: [{ type: 'text', text: '你好，现在是下午3点。' }], finishReason: STOP, usage: USAGE, warnings: [] }
    const out = await toolCallRecovery().wrapGenerate({ doGenerate: async () => result, params, model })
    assert.equal(out, result)
  })

  test('stream: each call comes as soon as its markup closes, before the text after it; other parts are the same objects', async () => {
    const c = CASES.get('minimax-m2-invoke-without-wrapper')
    const source = streamParts(c.input, 't1')
    source.splice(3, 0, { type: 'raw', rawValue: { x: 1 } }, { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' })
    const { stream } = await toolCallRecovery().wrapStream({ doStream: async () => ({ stream: convertArrayToReadableStream(source) }), params, model: { provider: 'mock.chat', modelId: 'test-model' } })
    const out = []
    for await (const p of stream) out.push(p)
    for (const p of source) if (!p.type.startsWith('text-') && p.type !== 'finish') assert.ok(out.includes(p), `${p.type} passed through as the same object`)
    const call = out.findIndex((p) => p.type === 'tool-call')
    const after = out.findIndex((p) => p.type === 'text-delta' && p.delta.includes('后'))
    assert.ok(call >= 0 && after > call, `tool-call at ${call}, the text after it at ${after}`)
    assert.deepEqual(out.slice(call - 3, call).map((p) => p.type), ['tool-input-start', 'tool-input-delta', 'tool-input-end'])
    assert.deepEqual(JSON.parse(out[call].input), { path: '/etc/app/配置.yaml' })
    const finish = out.at(-1)
    assert.deepEqual(finish.finishReason, { unified: 'tool-calls', raw: 'stop' })
    assert.equal(finish.providerMetadata.transcriptHygiene.format, 'minimax_m2')
  })

  test('a call the API returned natively and also left in the text is not run twice', async () => {
    const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "北京"}}\n</tool_call>'
    const result = { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"北京"}' }, { type: 'text', text }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE, warnings: [] }
    const out = await toolCallRecovery().wrapGenerate({ doGenerate: async () => result, params, model })
    assert.deepEqual(out.content.map((p) => p.type), ['tool-call'])
    assert.equal(out.content[0], result.content[0])
  })

  test('options: tools given replace the call\'s, format forces a family, thinking: strip drops reasoning', async () => {
    const reply = '<think>想一想</think>查询中。<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
    const result = { content: [{ type: 'text', text: reply }], finishReason: STOP, usage: USAGE, warnings: [] }
    const strip = await toolCallRecovery({ thinking: 'strip' }).wrapGenerate({ doGenerate: async () => result, params, model })
    assert.deepEqual(strip.content.map((p) => p.type), ['text', 'tool-call'])
    const glm = await toolCallRecovery({ format: 'glm45' }).wrapGenerate({ doGenerate: async () => result, params, model })
    assert.ok(!glm.content.some((p) => p.type === 'tool-call'), 'a Hermes call is not a GLM call')
  })

  test('a bad option is a TypeError naming it', () => {
    assert.throws(() => toolCallRecovery({ thinking: 'drop' }), { name: 'TypeError', message: /options\.thinking/ })
    assert.throws(() => transcriptHygiene({ provider: 3 }), { name: 'TypeError', message: /options\.provider/ })
  })

  test('the ES module and CommonJS entries are the same functions', () => {
    assert.equal(cjs.toolCallRecovery, toolCallRecovery)
    assert.equal(cjs.transcriptHygiene, transcriptHygiene)
  })
})

describe('transcriptHygiene in generateText', () => {
  const history = [
    { role: 'user', content: '读取 a.txt 和 b.txt' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '好的' },
        { type: 'tool-call', toolCallId: 'call_a|fc_1', toolName: 'read', input: { path: 'a.txt' } },
        { type: 'tool-call', toolCallId: 'call_b|fc_2', toolName: 'read', input: { path: 'b.txt' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_a|fc_1', toolName: 'read', output: { type: 'text', value: '内容 A' } },
        { type: 'tool-result', toolCallId: 'call_b|fc_2', toolName: 'read', output: { type: 'text', value: '内容 B' } },
        { type: 'tool-result', toolCallId: 'call_gone', toolName: 'read', output: { type: 'text', value: '孤儿结果' } },
      ],
    },
    { role: 'user', content: '继续' },
  ]
  const reply = { content: [{ type: 'text', text: '完成' }], finishReason: STOP, usage: USAGE, warnings: [] }

  // OpenClaw 2026.3.23 knows Mistral; 2026.9.6 through @openclaw/mistral-provider, which every
  // 2026.9.6 user of Mistral has (its policy: strict9 ids).
  for (const [mode, options] of [
    ['2026.3.23', { openclawVersion: '2026.3.23' }],
    ["2026.9.6, the Mistral plugin's policy", { openclawVersion: '2026.9.6' }],
  ]) {
    test(`Mistral (${mode}): ids rewritten to its 9-character alphabet in calls and results alike, the orphan result dropped`, async () => {
      const inner = new MockLanguageModelV3({ provider: 'mistral.chat', modelId: 'mistral-large-latest', doGenerate: reply })
      await generateText({ model: wrapLanguageModel({ model: inner, middleware: transcriptHygiene(options) }), messages: history })
      const prompt = inner.doGenerateCalls[0].prompt
      const calls = prompt[1].content.filter((p) => p.type === 'tool-call')
      const results = prompt[2].content
      assert.equal(calls.length, 2)
      for (const c of calls) assert.match(c.toolCallId, /^[a-zA-Z0-9]{9}$/)
      assert.deepEqual(results.map((r) => r.toolCallId), calls.map((c) => c.toolCallId))
      assert.deepEqual(results.map((r) => r.output.value), ['内容 A', '内容 B'])
      assert.deepEqual(calls.map((c) => c.input), [{ path: 'a.txt' }, { path: 'b.txt' }])
    })
  }

  test('a prompt no rule changes reaches the model unchanged: the same params object', async () => {
    const mw = transcriptHygiene()
    const params = { prompt: [{ role: 'system', content: '你是助手' }, { role: 'user', content: [{ type: 'text', text: '你好' }] }] }
    assert.equal(await mw.transformParams({ type: 'generate', params, model: { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' } }), params)
  })

  test('a call with no result gets a synthetic error result in the next message; untouched messages are the caller\'s objects', async () => {
    const prompt = [
      { role: 'user', content: [{ type: 'text', text: '查北京天气' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu01', toolName: 'get_weather', input: { city: '北京' } }] },
      { role: 'user', content: [{ type: 'text', text: '算了' }] },
    ]
    const params = { prompt }
    const out = await transcriptHygiene().transformParams({ type: 'generate', params, model: { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' } })
    assert.deepEqual(out.prompt.map((m) => m.role), ['user', 'assistant', 'tool', 'user'])
    assert.equal(out.prompt[0], prompt[0])
    assert.equal(out.prompt[1], prompt[1])
    assert.equal(out.prompt[3], prompt[2])
    const [result] = out.prompt[2].content
    assert.equal(result.type, 'tool-result')
    assert.equal(result.toolCallId, 'toolu01')
    assert.equal(result.toolName, 'get_weather')
    assert.equal(result.output.type, 'error-text')
    assert.ok(result.output.value.length > 0)
    assert.equal(params.prompt, prompt, 'the input is not mutated')
    assert.equal(prompt.length, 3)
  })
})
