// transcript-hygiene/openai with the real `openai` client: a loopback HTTP server (127.0.0.1 only)
// answers /v1/chat/completions with replies of the reply table (__test__/fixtures/replies/, each
// with its source: Chinese GLM, Qwen and MiniMax replies and twins that hold no call), whole or as
// an SSE stream whose chunks have the shape SGLang sends (the recorded stream quoted in
// https://github.com/sgl-project/sglang/pull/9657: `role`/`content`/`reasoning_content`/
// `tool_calls` always present, `null` when empty; `matched_stop`; `usage: null`), cut into small
// deltas. The client parses what the server sends; the helpers clean what the client yields.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { replyCases } from './fixtures/helpers.mjs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import OpenAI from 'openai'
import { cleanChatCompletion, cleanChatCompletionStream } from 'transcript-hygiene/openai'

const require = createRequire(import.meta.url)
const { cleanResponse } = require('transcript-hygiene')
const cjs = require('transcript-hygiene/openai')

const CASES = replyCases()
const POSITIVE = ['rtp-llm-525-glm-hangzhou-zh', 'qwen3-vl-1674-hermes-hangzhou-zh', 'minimax-m3-namespaced-call-zh', 'glm-parallel-with-reasoning-and-typing', 'minimax-m2-invoke-without-wrapper']
const NEGATIVE = ['minimax-m3-call-in-inline-code-stays', 'fence-example-between-prose-minimax', 'gemini-balance-think-tags-in-inline-code']
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } }]

/** The SSE body for `text`: SGLang-shaped chunks of 1 to 5 UTF-16 units, then the finish and [DONE]. */
function sse(text, model) {
  const base = { id: 'fea45bfa7bbd4209b1e71bdcdcc6c667', object: 'chat.completion.chunk', created: 1756216933, model }
  const chunk = (delta, finish) => ({ ...base, choices: [{ index: 0, delta: { role: null, content: null, reasoning_content: null, tool_calls: null, ...delta }, logprobs: null, finish_reason: finish, matched_stop: finish === null ? null : 151645 }], usage: null })
  const events = [chunk({ role: 'assistant', content: '' }, null)]
  for (let at = 0, n = 1; at < text.length; at += n, n = (n % 5) + 1) events.push(chunk({ content: text.slice(at, at + n) }, null))
  events.push(chunk({ content: '' }, 'stop'))
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n'
}

const completion = (text, model) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1756216933,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content: text, reasoning_content: null, tool_calls: null }, logprobs: null, finish_reason: 'stop', matched_stop: 151645 }],
  usage: { prompt_tokens: 20, completion_tokens: 30, total_tokens: 50 },
})

let server
let client
const requests = []

before(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const request = JSON.parse(body)
      requests.push(request)
      // The reply to send is named by the request's model: `<case name>@<model id>`.
      const [name, model] = request.model.split('@')
      const text = CASES.get(name).input
      if (request.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(sse(text, model))
      } else {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(completion(text, model)))
      }
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  client = new OpenAI({ apiKey: 'test', baseURL: `http://127.0.0.1:${server.address().port}/v1`, maxRetries: 0 })
})

after(() => server?.close())

const modelOf = (c) => `${c.name}@${c.options?.model ?? 'test-model'}`
const expected = (c) => cleanResponse(c.input, { ...c.options, tools: TOOLS, model: c.options?.model ?? 'test-model' })
const calls = (list) => list.map((t) => ({ name: t.function.name, arguments: JSON.parse(t.function.arguments) }))

describe('cleanChatCompletion with the openai client', () => {
  for (const name of POSITIVE) {
    test(`${name}: calls in tool_calls, finish_reason tool_calls, the input untouched`, async () => {
      const c = CASES.get(name)
      const got = await client.chat.completions.create({ model: modelOf(c), messages: [{ role: 'user', content: '查一下' }], tools: TOOLS })
      const before = structuredClone(got)
      const out = cleanChatCompletion(got, { tools: TOOLS })
      assert.deepEqual(got, before, 'the input is not mutated')
      const [choice] = out.choices
      assert.equal(choice.finish_reason, 'tool_calls')
      assert.deepEqual(calls(choice.message.tool_calls), c.calls)
      assert.equal(choice.message.content, c.content === '' ? null : c.content)
      assert.equal(choice.message.reasoning_content, c.reasoning ?? null)
      // The same shape: every field of the input is still there.
      assert.deepEqual(Object.keys(out).sort(), Object.keys(got).sort())
      assert.deepEqual(Object.keys(choice.message).sort(), Object.keys(got.choices[0].message).sort())
      assert.equal(out.usage, got.usage)
      // The cleaned message goes back to the server as the next request's assistant turn.
      const ids = choice.message.tool_calls.map((t) => t.id)
      const next = [{ role: 'user', content: '查一下' }, choice.message, ...ids.map((id) => ({ role: 'tool', tool_call_id: id, content: '{"ok":true}' }))]
      await client.chat.completions.create({ model: modelOf(CASES.get('minimax-m3-call-in-inline-code-stays')), messages: next })
      assert.deepEqual(requests.at(-1).messages[1].tool_calls.map((t) => t.id), ids)
    })
  }
  for (const name of NEGATIVE) {
    test(`${name}: comes back as the very same object`, async () => {
      const c = CASES.get(name)
      const got = await client.chat.completions.create({ model: modelOf(c), messages: [{ role: 'user', content: '说明一下' }] })
      assert.equal(cleanChatCompletion(got, { tools: TOOLS }), got)
    })
  }
  test('bad arguments are TypeErrors naming them', () => {
    assert.throws(() => cleanChatCompletion(null), { name: 'TypeError', message: /^completion: / })
    assert.throws(() => cleanChatCompletion(completion('x', 'm'), { thinking: 1 }), { name: 'TypeError', message: /options\.thinking/ })
    assert.throws(() => cleanChatCompletionStream({}), { name: 'TypeError', message: /^stream: / })
    assert.throws(() => cleanChatCompletionStream((async function* () {})(), { format: 2 }), { name: 'TypeError', message: /options\.format/ })
  })
  test('the ES module and CommonJS entries are the same functions', () => {
    assert.equal(cjs.cleanChatCompletion, cleanChatCompletion)
    assert.equal(cjs.cleanChatCompletionStream, cleanChatCompletionStream)
  })
})

describe('cleanChatCompletionStream with the openai client', () => {
  for (const name of [...POSITIVE, ...NEGATIVE]) {
    test(`${name}: every chunk comes out; content, reasoning and calls are the whole reply's`, async () => {
      const c = CASES.get(name)
      const stream = await client.chat.completions.create({ model: modelOf(c), messages: [{ role: 'user', content: '查一下' }], tools: TOOLS, stream: true })
      let content = ''
      let reasoning = ''
      const toolCalls = []
      let finish = null
      let chunks = 0
      let callChunk = -1
      let lastText = -1
      for await (const chunk of cleanChatCompletionStream(stream, { tools: TOOLS })) {
        const [choice] = chunk.choices
        chunks++
        content += choice.delta.content ?? ''
        reasoning += choice.delta.reasoning_content ?? ''
        for (const t of choice.delta.tool_calls ?? []) {
          assert.equal(t.index, toolCalls.length)
          toolCalls.push(t)
          if (callChunk < 0) callChunk = chunks
        }
        if ((choice.delta.content ?? '') !== '') lastText = chunks
        finish = choice.finish_reason ?? finish
      }
      const want = expected(c)
      assert.equal(chunks, sse(c.input, 'm').split('\n\n').length - 2, 'one chunk out per chunk in')
      assert.equal(content, want.content)
      assert.equal(reasoning, want.reasoning)
      assert.deepEqual(toolCalls.map(({ index, ...t }) => t), want.toolCalls)
      if (c.kind === 'negative') {
        assert.equal(content, c.input)
        assert.equal(finish, 'stop')
      } else {
        assert.deepEqual(calls(toolCalls), c.calls)
        assert.equal(finish, 'tool_calls')
        // A call comes with the chunk that closes its markup, not at the end of the reply.
        if (/稍等|读取后/.test(c.content)) assert.ok(callChunk > 0 && callChunk < lastText, `call in chunk ${callChunk}, the reply's text until chunk ${lastText}`)
      }
    })
  }
})
