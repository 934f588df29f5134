// transcript-hygiene/openai on replies of real servers (__test__/fixtures/recorded-replies/,
// each with its source and what of it is as recorded): a loopback HTTP server (127.0.0.1 only)
// sends each recording to the real `openai` client, the stream's bytes written in pieces of 1, 7
// and 64 bytes and whole (pieces that split a UTF-8 character and an SSE line); then the recorded
// text re-cut at every point into two deltas and into deltas of every size. Whatever the cut, the
// cleaned stream must hold what cleanResponse finds in the whole reply, and what the recording's
// `expect` says a user depends on.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import OpenAI from 'openai'
import { cleanChatCompletion, cleanChatCompletionStream } from 'transcript-hygiene/openai'

const require = createRequire(import.meta.url)
const { cleanResponse } = require('transcript-hygiene')

const DIR = new URL('./fixtures/recorded-replies/', import.meta.url)
const { replies } = JSON.parse(readFileSync(new URL('index.json', DIR), 'utf8'))
const PIECES = [1, 7, 64, Infinity]

/** The recorded SSE events a client can read whole: an event cut off by the source is not sent. */
function events(reply) {
  const text = readFileSync(new URL(reply.file, DIR), 'utf8')
  if (reply.kind === 'chunks') return JSON.parse(text).map((c) => `data: ${JSON.stringify(c)}\n\n`)
  const whole = text.split('\n\n').map((e) => `${e}\n\n`)
  if (!text.endsWith('\n\n')) whole.pop()
  return whole.filter((e) => e.trim() !== '')
}
const chunksOf = (reply) => events(reply).map((e) => JSON.parse(e.slice('data: '.length)))
const textOf = (chunks) => chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')
const calls = (list) => list.map((t) => ({ name: t.function.name, arguments: JSON.parse(t.function.arguments) }))

let server
let client

before(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', async () => {
      // The request's model names the recording and the size of the pieces: `<name>@<bytes>`.
      const [name, size] = JSON.parse(body).model.split('@')
      const reply = replies.find((r) => r.name === name)
      if (reply.kind === 'completion') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(readFileSync(new URL(reply.file, DIR)))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const bytes = Buffer.from(events(reply).join(''), 'utf8')
      const n = Number(size)
      for (let at = 0; at < bytes.length; at += n) await new Promise((resolve) => res.write(bytes.subarray(at, at + n), resolve))
      res.end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  client = new OpenAI({ apiKey: 'test', baseURL: `http://127.0.0.1:${server.address().port}/v1`, maxRetries: 0 })
})

after(() => server?.close())

/** Runs `chunks` (any async iterable) through cleanChatCompletionStream; what came out, joined. */
async function drain(chunks, options) {
  const out = { content: '', reasoning: '', toolCalls: [], finish: null, chunks: [] }
  for await (const chunk of cleanChatCompletionStream(chunks, options)) {
    out.chunks.push(chunk)
    const [choice] = chunk.choices
    out.content += choice.delta.content ?? ''
    out.reasoning += choice.delta.reasoning_content ?? ''
    for (const t of choice.delta.tool_calls ?? []) {
      assert.equal(t.index, out.toolCalls.length, 'tool_calls indexes count up from 0')
      out.toolCalls.push(t)
    }
    out.finish = choice.finish_reason ?? out.finish
  }
  return out
}

/** What a user depends on (the recording's `expect`), and agreement with the whole reply's cleaning. */
function checkStream(reply, out, recorded) {
  const options = { tools: reply.tools, model: recorded[0].model }
  const want = cleanResponse(textOf(recorded), options)
  assert.equal(out.content, want.content)
  assert.equal(out.reasoning, want.reasoning)
  assert.deepEqual(out.toolCalls.map(({ index, ...t }) => t), want.toolCalls)
  const { expect } = reply
  assert.deepEqual(calls(out.toolCalls), expect.calls)
  if ('reasoning' in expect) assert.equal(out.reasoning, expect.reasoning)
  if ('content' in expect) assert.equal(out.content, expect.content)
  for (const s of expect.absent) assert.ok(!out.content.includes(s), `${s} is not in the content`)
  const finish = recorded.at(-1).choices[0].finish_reason
  assert.equal(out.finish, finish === 'stop' && expect.calls.length > 0 ? 'tool_calls' : finish)
}

const streams = replies.filter((r) => r.kind !== 'completion')

test('every recording names its source and says what of it is as recorded', () => {
  assert.ok(streams.length >= 2)
  for (const r of replies) {
    assert.match(r.source, /^https:\/\/github\.com\//, r.name)
    assert.ok(r.recorded.length > 0 && (r.truncated === false || r.truncated.length > 0), r.name)
    assert.ok(['chunks', 'sse', 'completion'].includes(r.kind), r.name)
  }
})

describe('recorded streams through the openai client, the bytes in pieces', () => {
  for (const reply of streams) {
    for (const size of PIECES) {
      test(`${reply.name}: ${size === Infinity ? 'whole' : `${size}-byte pieces`}`, async () => {
        const recorded = chunksOf(reply)
        const stream = await client.chat.completions.create({ model: `${reply.name}@${size}`, messages: [{ role: 'user', content: '查一下' }], tools: reply.tools.length > 0 ? reply.tools : undefined, stream: true })
        const out = await drain(stream, { tools: reply.tools })
        checkStream(reply, out, recorded)
        // One chunk out per recorded chunk, each the recorded one's envelope (id, created, model).
        assert.equal(out.chunks.length, recorded.length)
        out.chunks.forEach((c, i) => assert.deepEqual([c.id, c.created, c.model], [recorded[i].id, recorded[i].created, recorded[i].model]))
      })
    }
  }
})

describe('recorded streams re-cut: at every point into two deltas, and into deltas of every size', () => {
  /** The recording's text in `cuts`, each in a copy of the recorded chunk it starts in; the recorded last chunk after. */
  function recut(recorded, cuts) {
    const text = textOf(recorded)
    const last = recorded.at(-1)
    const ends = last.choices[0].finish_reason != null
    const body = ends ? recorded.slice(0, -1) : recorded
    // Where each recorded chunk's text starts in the whole text.
    const starts = []
    let at = 0
    for (const c of body) {
      starts.push(at)
      at += c.choices[0].delta.content?.length ?? 0
    }
    const out = []
    for (let i = 0; i + 1 < cuts.length; i++) {
      const c = body[Math.max(starts.findLastIndex((s) => s <= cuts[i]), 0)]
      out.push({ ...c, choices: [{ ...c.choices[0], delta: { ...c.choices[0].delta, content: text.slice(cuts[i], cuts[i + 1]) }, finish_reason: null }] })
    }
    if (ends) out.push({ ...last, choices: [{ ...last.choices[0], delta: { ...last.choices[0].delta, content: '' } }] })
    return out
  }
  async function* iterate(chunks) {
    yield* chunks
  }

  for (const reply of streams) {
    test(`${reply.name}: every cut gives the whole reply's content, reasoning and calls`, async () => {
      const recorded = chunksOf(reply)
      const length = textOf(recorded).length
      const cutsList = []
      for (let p = 0; p <= length; p++) cutsList.push([0, p, length])
      for (let n = 1; n <= length; n++) {
        const cuts = []
        for (let at = 0; at < length; at += n) cuts.push(at)
        cutsList.push([...cuts, length])
      }
      for (const cuts of cutsList) {
        const chunks = recut(recorded, cuts)
        assert.equal(textOf(chunks), textOf(recorded))
        checkStream(reply, await drain(iterate(chunks), { tools: reply.tools }), recorded)
      }
    })
  }
})

describe('a recorded whole completion through the openai client', () => {
  for (const reply of replies.filter((r) => r.kind === 'completion')) {
    test(`${reply.name}: the calls in tool_calls, finish_reason tool_calls, the content emptied`, async () => {
      const got = await client.chat.completions.create({ model: `${reply.name}@0`, messages: [{ role: 'user', content: 'What time is it in france? What about new york city?' }], tools: reply.tools })
      const before = structuredClone(got)
      const out = cleanChatCompletion(got, { tools: reply.tools })
      assert.deepEqual(got, before, 'the input is not mutated')
      const [choice] = out.choices
      assert.deepEqual(calls(choice.message.tool_calls), reply.expect.calls)
      assert.equal(choice.message.content, reply.expect.content)
      assert.equal(choice.finish_reason, 'tool_calls')
      assert.deepEqual(Object.keys(out).sort(), Object.keys(got).sort())
      assert.equal(out.usage, got.usage)
    })
  }
})
