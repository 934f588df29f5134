// sanitizeRequest on OpenAI chat completions bodies: the real-error fixtures (shared with the Rust
// test), identity of what is untouched, the TypeErrors, and the CLI's --protocol.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { th, runFrozen } from './fixtures/helpers.mjs'
import { encodePng, jpegSize } from './fixtures/png.mjs'

const { sanitizeRequest } = th
const here = path.dirname(fileURLToPath(import.meta.url))
const load = (file) => {
  const all = JSON.parse(fs.readFileSync(path.join(here, 'fixtures/wire', file), 'utf8'))
  return all.cases.map((c) => ({ ...c, protocol: all.protocol }))
}
const FIXTURES = [...load('openai-chat.json'), ...load('anthropic.json'), ...load('openai-responses.json'), ...load('gemini.json')]
const byName = (prefix) => FIXTURES.find((c) => c.name.startsWith(prefix))
const opts = (c, extra) => ({ protocol: c.protocol, ...c.target, ...extra })

describe('sanitizeRequest: the fixtures of real provider errors (openai-chat, anthropic, openai-responses)', () => {
  for (const c of FIXTURES) {
    test(`${c.protocol}: ${c.name} (${c.source.split(' ')[0]})`, () => {
      const body = structuredClone(c.body)
      const r = runFrozen((b) => sanitizeRequest(b, opts(c, { report: true })), body)
      if (c.same) {
        assert.equal(r.body, body, 'a body that needs nothing comes back itself')
        assert.deepEqual(r.changes, [])
        assert.equal(sanitizeRequest(body, opts(c)), body)
      } else {
        assert.ok(r.changes.length > 0)
        if (c.expected !== null) assert.deepEqual(r.body, c.expected)
        assert.deepEqual(sanitizeRequest(body, opts(c)), r.body, 'report: true changes only the shape of the answer')
      }
    })
  }
})

describe('sanitizeRequest: what no rule touched is the same object', () => {
  test('moved results, untouched messages and call functions are shared; renamed calls are shallow copies', () => {
    const c = byName('parallel calls')
    const body = structuredClone(c.body)
    const out = sanitizeRequest(body, opts(c))
    const [m0, m1, m2, m3, m4] = body.messages
    assert.notEqual(out, body)
    assert.equal(out.model, body.model)
    assert.equal(out.messages[0], m0)
    assert.deepEqual(out.messages[2], { ...m4, tool_call_id: 'call0lstmp' }, 'moved, renamed: a shallow copy')
    assert.equal(out.messages[4], m3, 'the interleaved user turn, moved after the results')
    assert.notEqual(out.messages[1], m1)
    assert.equal(out.messages[1].tool_calls[0].function, m1.tool_calls[0].function)
    assert.deepEqual(Object.keys(out.messages[1].tool_calls[0]), ['id', 'type', 'function'], 'key order kept')
    // With the ids left alone (a policy override), the moved results are the input objects.
    const kept = sanitizeRequest(body, opts(c, { policy: { sanitizeToolCallIds: false } }))
    const order = [m0, m1, m4, m2, m3]
    assert.equal(kept.messages.length, order.length)
    order.forEach((m, i) => assert.equal(kept.messages[i], m, `messages[${i}]`))
    assert.equal(out.messages.length, 5, 'the duplicate result is dropped')
  })

  test('unknown fields of the body and of messages survive a repair', () => {
    const body = {
      model: 'm',
      metadata: { trace: '追踪' },
      tools: [],
      messages: [
        { role: 'user', content: 'hi', x_user: 1 },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' }, x_call: true }], x_turn: 'keep' },
      ],
    }
    const out = sanitizeRequest(body, { protocol: 'openai-chat', provider: 'openai' })
    assert.equal(out.metadata, body.metadata)
    assert.equal('tools' in out, false)
    assert.equal(out.messages[1].x_turn, 'keep')
    assert.equal(out.messages[1].tool_calls[0].x_call, true)
    assert.deepEqual(out.messages[2], { role: 'tool', tool_call_id: 'call1', content: out.messages[2].content })
    assert.equal(typeof out.messages[2].content, 'string')
  })
})

describe('sanitizeRequest: images at the default limits (generated, not committed)', () => {
  const url = (png) => `data:image/png;base64,${png.toString('base64')}`
  const jpeg = (u) => jpegSize(Buffer.from(u.slice(u.indexOf(',') + 1), 'base64'))
  test('openai-chat: a 1600 px screenshot shrinks to 1200 px; only the changed part is a new object', () => {
    const wide = { type: 'image_url', image_url: { url: url(encodePng(1600, 20)), detail: 'high' } }
    const fine = { type: 'image_url', image_url: { url: url(encodePng(1200, 20)) } }
    const text = { type: 'text', text: '这两张截图有什么不同？' }
    const body = { model: 'gpt-4o', messages: [{ role: 'system', content: '用中文回答' }, { role: 'user', content: [text, wide, fine] }] }
    const r = runFrozen((b) => sanitizeRequest(b, { protocol: 'openai-chat', report: true }), body)
    const [m0, m1] = r.body.messages
    assert.equal(m0, body.messages[0])
    assert.equal(m1.content[0], text)
    assert.equal(m1.content[2], fine, 'the twin within the limits is the same object')
    assert.equal(m1.content[1].image_url.detail, 'high')
    assert.ok(m1.content[1].image_url.url.startsWith('data:image/jpeg;base64,/9j/'))
    assert.deepEqual(jpeg(m1.content[1].image_url.url), { width: 1200, height: 15 })
    assert.deepEqual(r.changes.map((c) => [c.rule, c.path]), [['sanitizeImages', 'messages[1].content[1]']])
    assert.match(r.changes[0].detail, /^image re-encoded to fit the size limits \(1200×15 JPEG, quality \d+\)$/)
  })
  test('anthropic: 2100 px images are kept (8000 px) until the body holds more than 20 (2000 px)', () => {
    const data = encodePng(2100, 8).toString('base64')
    const body = (n) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'text', text: `${n} 张图` }, ...Array.from({ length: n }, () => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }))] }],
    })
    const twenty = body(20)
    assert.equal(sanitizeRequest(twenty, { protocol: 'anthropic' }), twenty)
    const out = sanitizeRequest(body(21), { protocol: 'anthropic' })
    const images = out.messages[0].content.slice(1)
    assert.equal(images.length, 21)
    for (const b of images) {
      assert.equal(b.source.media_type, 'image/jpeg')
      assert.deepEqual(jpegSize(Buffer.from(b.source.data, 'base64')).width, 2000)
    }
  })
  test('the same images on the bytes path, and bad image options are TypeErrors', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: url(encodePng(1600, 20)) } }] }] }
    const bytes = JSON.parse(th.sanitizeRequestBuffer(Buffer.from(JSON.stringify(body)), { protocol: 'openai-chat' }).toString())
    assert.deepEqual(bytes, sanitizeRequest(body, { protocol: 'openai-chat' }))
    assert.throws(() => sanitizeRequest(body, { protocol: 'openai-chat', maxBytes: '5MB' }), /^TypeError: options\.maxBytes: expected a number, got "5MB"$/)
    assert.throws(() => sanitizeRequest(body, { protocol: 'openai-chat', openclawVersion: '2026.1' }), /^TypeError: options\.openclawVersion: expected '2026\.3\.23' or '2026\.9\.6', got "2026\.1"$/)
  })
})

describe('sanitizeRequest (gemini): a part whose thought signature changes is a shallow copy', () => {
  test('the stand-in and a removed signature: the call object and every other part are shared', () => {
    const c = byName('a history another model wrote, continued on Gemini 3')
    const body = structuredClone(c.body)
    const { body: out, changes } = sanitizeRequest(body, opts(c, { report: true }))
    const step = body.contents[5]
    assert.notEqual(out.contents[5].parts[0], step.parts[0])
    assert.equal(out.contents[5].parts[0].functionCall, step.parts[0].functionCall)
    assert.equal(out.contents[5].parts[1], step.parts[1], 'the parallel call: Gemini validates only the first')
    assert.equal(out.contents[7].parts[0], body.contents[7].parts[0])
    assert.equal(out.contents[1], body.contents[1], 'an earlier turn is not validated')
    assert.deepEqual(changes.map((ch) => [ch.rule, ch.path]), [['skipThoughtSignatureValidator', 'contents[5].parts[0]'], ['skipThoughtSignatureValidator', 'contents[7].parts[1]']])
    const f = byName('a stored signature stamped onto a user part')
    const fb = structuredClone(f.body)
    const fixed = sanitizeRequest(fb, opts(f))
    assert.deepEqual(Object.keys(fixed.contents[0].parts[0]), ['text'])
    assert.equal(fixed.contents[1].parts[1], fb.contents[1].parts[1], 'a base64 signature on a model part stays')
  })
})

describe('sanitizeRequest (anthropic): results go back into the user turn', () => {
  test('a moved tool_result is the same block object; the rest of its turn stays in place', () => {
    const use = (id) => ({ type: 'tool_use', id, name: 'read', input: { path: 'a.md' } })
    const body = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('tooluA'), use('tooluB')] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tooluB', content: 'b' }, { type: 'text', text: '还有' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tooluA', content: 'a' }] },
      ],
    }
    const { body: out, changes } = runFrozen((b) => sanitizeRequest(b, { protocol: 'anthropic', provider: 'anthropic', report: true }), body)
    const [m0, m1, m2, m3] = body.messages
    assert.equal(out.messages.length, 3)
    assert.equal(out.messages[0], m0)
    assert.equal(out.messages[1], m1)
    assert.deepEqual(out.messages[2].content, [m3.content[0], m2.content[0], m2.content[1]])
    assert.equal(out.messages[2].content[0], m3.content[0])
    assert.equal(out.messages[2].content[2], m2.content[1])
    assert.ok(changes.some((c) => c.rule === 'repairToolUseResultPairing'))
  })
})

describe('sanitizeRequest: report paths are in the body’s terms', () => {
  test('Mistral ids: each renamed call and result is named where it sits', () => {
    const c = byName('ids from other providers')
    const { body, changes } = sanitizeRequest(c.body, opts(c, { report: true }))
    const ids = changes.filter((ch) => ch.rule === 'sanitizeToolCallIds').map((ch) => ch.path)
    assert.deepEqual(ids, ['messages[1].tool_calls[0]', 'messages[2]', 'messages[3].tool_calls[0]', 'messages[3].tool_calls[1]', 'messages[4]', 'messages[5]'])
    for (const m of body.messages) {
      for (const id of [m.tool_call_id, ...(m.tool_calls || []).map((t) => t.id)].filter((x) => x !== undefined)) {
        assert.match(id, /^[a-zA-Z0-9]{9}$/)
      }
    }
  })

  test('an empty tools array is reported at `tools`', () => {
    const { changes } = sanitizeRequest({ tools: [], messages: [] }, { protocol: 'openai-chat', report: true })
    assert.deepEqual(changes.map((c) => [c.rule, c.path]), [['emptyTools', 'tools']])
  })
})

describe('sanitizeRequest: bad input is a TypeError naming the path', () => {
  const cases = [
    [null, { protocol: 'openai-chat' }, /^body: expected an object/],
    [{ messages: [] }, undefined, /^options: expected an object with a protocol/],
    [{ messages: [] }, {}, /^options\.protocol: expected 'openai-chat' or 'anthropic' or 'openai-responses' or 'gemini', got undefined/],
    [{ messages: [] }, { protocol: 'anthropic-v0' }, /^options\.protocol: expected 'openai-chat' or 'anthropic' or 'openai-responses' or 'gemini', got "anthropic-v0"/],
    [{ messages: [] }, { protocol: 'openai-chat', provider: 3 }, /^options\.provider: expected a string/],
    [{ messages: [] }, { protocol: 'openai-chat', model: 'kimi-k2.6' }, /^options\.model: expected an object/],
    [{ messages: [] }, { protocol: 'openai-chat', model: { reasoning: 'yes' } }, /^options\.model\.reasoning: expected a boolean/],
    [{ messages: [] }, { protocol: 'gemini', model: { params: { canonicalModelId: 4 } } }, /^options\.model\.params\.canonicalModelId: expected a string/],
    [{ messages: 'hi' }, { protocol: 'openai-chat' }, /^body\.messages: expected an array of messages, got a string$/],
    [{ messages: [1] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]: expected a message object, got a number$/],
    [{ messages: [{ content: 'x' }] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]\.role: expected a string, got nothing$/],
    [{ messages: [{ role: 'assistant', tool_calls: {} }] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]\.tool_calls: expected an array of tool calls, got an object$/],
    [{ messages: [{ role: 'assistant', tool_calls: [{ id: 7 }] }] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]\.tool_calls\[0\]\.id: expected a string, got a number$/],
    [{ messages: [{ role: 'user', content: 5 }] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]\.content: expected a string, an array of content parts or null, got a number$/],
    [{ messages: [{ role: 'tool', tool_call_id: false }] }, { protocol: 'openai-chat' }, /^body\.messages\[0\]\.tool_call_id: expected a string, got a boolean$/],
    [{ input: 3 }, { protocol: 'openai-responses' }, /^body\.input: expected a string or an array of input items, got a number$/],
    [{ input: [{ content: 'x' }] }, { protocol: 'openai-responses' }, /^body\.input\[0\]\.role: expected a string, got nothing$/],
    [{ input: [{ type: 'function_call', call_id: 9 }] }, { protocol: 'openai-responses' }, /^body\.input\[0\]\.call_id: expected a string, got a number$/],
    [{ messages: {} }, { protocol: 'anthropic' }, /^body\.messages: expected an array of messages, got an object$/],
    [{ messages: [{ role: 'user', content: 1 }] }, { protocol: 'anthropic' }, /^body\.messages\[0\]\.content: expected a string or an array of content blocks, got a number$/],
    [{ messages: [{ role: 'user', content: ['x'] }] }, { protocol: 'anthropic' }, /^body\.messages\[0\]\.content\[0\]: expected a content block object, got a string$/],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 1 }] }] }, { protocol: 'anthropic' }, /^body\.messages\[0\]\.content\[0\]\.tool_use_id: expected a string, got a number$/],
    [{ contents: {} }, { protocol: 'gemini' }, /^body\.contents: expected an array of messages, got an object$/],
    [{ contents: [{ role: 'user', parts: 'hi' }] }, { protocol: 'gemini' }, /^body\.contents\[0\]\.parts: expected an array of parts, got a string$/],
    [{ contents: [{ role: 'user', parts: ['hi'] }] }, { protocol: 'gemini' }, /^body\.contents\[0\]\.parts\[0\]: expected a part object, got a string$/],
    [{ contents: [{ role: 'model', parts: [{ functionCall: { name: 3 } }] }] }, { protocol: 'gemini' }, /^body\.contents\[0\]\.parts\[0\]\.functionCall\.name: expected a string, got a number$/],
  ]
  for (const [body, options, re] of cases) {
    test(String(re), () => assert.throws(() => sanitizeRequest(body, options), (e) => e instanceof TypeError && re.test(e.message)))
  }

  test('only what the rules read is walked: a cycle or deep nesting elsewhere is carried as it is', () => {
    const body = { messages: [{ role: 'tool', tool_call_id: 'gone', content: 'orphan' }] }
    body.self = body
    let deep = {}
    body.messages.push({ role: 'user', content: 'x', extra: deep })
    for (let i = 0; i < 300; i++) deep = deep.next = {}
    const out = sanitizeRequest(body, { protocol: 'openai-chat' })
    assert.equal(out.self, body)
    assert.deepEqual(out.messages, [body.messages[1]])
    assert.equal(out.messages[0], body.messages[1])
    // A cycle through the fields the rules read is cut at the readers' depth.
    const loop = { role: 'user', content: [] }
    loop.content.push({ type: 'text', text: 'a', content: loop })
    assert.equal(sanitizeRequest({ messages: [loop] }, { protocol: 'anthropic' }).messages[0], loop)
  })

  test('a getter that throws in a field the rules read names its path', () => {
    const m = { role: 'assistant', content: null }
    Object.defineProperty(m, 'tool_calls', { enumerable: true, get: () => { throw new Error('gone') } })
    const re = /^body\.messages\[1\]\.tool_calls: could not be read \(gone\)$/
    assert.throws(() => sanitizeRequest({ messages: [{ role: 'user', content: 'q' }, m] }, { protocol: 'openai-chat' }), (e) => e instanceof TypeError && re.test(e.message))
  })

  test('ids that differ only by a lone surrogate stay two ids, each result with its own call', () => {
    const call = (id, name) => ({ id, type: 'function', function: { name, arguments: '{}' } })
    const body = {
      messages: [
        { role: 'user', content: '查一下' },
        { role: 'assistant', content: null, tool_calls: [call('call_\uD800', 'a'), call('call_\uD801', 'b')] },
        { role: 'tool', tool_call_id: 'call_\uD801', content: 'B' },
        { role: 'tool', tool_call_id: 'call_\uD800', content: 'A' },
      ],
    }
    const out = sanitizeRequest(body, { protocol: 'openai-chat', provider: 'openai' })
    const [a, b] = out.messages[1].tool_calls
    assert.notEqual(a.id, b.id)
    assert.deepEqual(
      out.messages.slice(2).map((m) => [m.tool_call_id, m.content]),
      [[a.id, 'A'], [b.id, 'B']],
    )
    // The report names the ids as they were sent, not as the codec's private-use stand-ins.
    const said = sanitizeRequest(body, { protocol: 'openai-chat', provider: 'openai', report: true }).changes.map((c) => c.detail).join('\n')
    assert.match(said, /"call_\\u\{d800\}"/)
    assert.doesNotMatch(said, /10f8/)
  })

  test('a lone surrogate in a text does not stop the repair', () => {
    const body = { messages: [{ role: 'user', content: 'bad \uD800 half' }, { role: 'tool', tool_call_id: 'x', content: 'orphan' }] }
    const out = sanitizeRequest(body, { protocol: 'openai-chat' })
    assert.equal(out.messages.length, 1)
    assert.equal(out.messages[0], body.messages[0])
  })
})

describe('transcript-hygiene sanitize --protocol openai-chat', () => {
  test('shows the changes and writes the repaired body', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'th-wire-'))
    const c = byName('a call never answered')
    const input = path.join(dir, 'body.json')
    const output = path.join(dir, 'fixed.json')
    fs.writeFileSync(input, `${JSON.stringify(c.body, null, 2)}\n`)
    const bin = path.join(here, '..', 'bin', 'transcript-hygiene.js')
    const r = spawnSync(process.execPath, [bin, 'sanitize', input, '--protocol', 'openai-chat', '--provider', 'openai', '--write', output], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /messages\[1\]  repairToolUseResultPairing: inserted a synthetic error result/)
    assert.deepEqual(JSON.parse(fs.readFileSync(output, 'utf8')), c.expected)
    assert.match(fs.readFileSync(output, 'utf8'), /^\{\n {2}"model"/)
    const check = spawnSync(process.execPath, [bin, 'sanitize', output, '--protocol', 'openai-chat', '--provider', 'openai', '--check'], { encoding: 'utf8' })
    assert.equal(check.status, 0, `the repaired body needs nothing more: ${check.stdout}`)
    fs.rmSync(dir, { recursive: true })
  })

  // The image limits as flags: [extra arguments, exit status, what stdout / stderr says].
  const rows = [
    [[], 0, /^\S+: nothing to change \(openai-chat\)\n$/, null],
    [['--max-dimension-px', '16'], 0, /messages\[0\]\.content\[1\]  sanitizeImages: image re-encoded to fit the size limits \(16×/, null],
    [['--max-dimension-px', '16', '--max-bytes', '5e6', '--max-decode-bytes', '50000000', '--json'], 0, /"rule": "sanitizeImages"/, null],
    [['--max-bytes', '5MB'], 2, null, /--max-bytes: expected a positive whole number, got "5MB"/],
    [['--max-dimension-px', '0'], 2, null, /--max-dimension-px: expected a positive whole number, got "0"/],
  ]
  for (const [extra, status, out, err] of rows) {
    test(`image limits: ${extra.join(' ') || 'the defaults'}`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'th-wire-'))
      const input = path.join(dir, 'body.json')
      fs.writeFileSync(input, JSON.stringify(byName('a screenshot over the side limit, as a data URL').body))
      const bin = path.join(here, '..', 'bin', 'transcript-hygiene.js')
      const r = spawnSync(process.execPath, [bin, 'sanitize', input, '--protocol', 'openai-chat', '--provider', 'openai', ...extra], { encoding: 'utf8' })
      fs.rmSync(dir, { recursive: true })
      assert.equal(r.status, status, r.stderr)
      if (out !== null) assert.match(r.stdout, out)
      if (err !== null) assert.match(r.stderr, err)
    })
  }
  test('image limits apply to --protocol only', () => {
    const bin = path.join(here, '..', 'bin', 'transcript-hygiene.js')
    const r = spawnSync(process.execPath, [bin, 'sanitize', path.join(here, 'fixtures'), '--max-bytes', '100'], { encoding: 'utf8' })
    assert.equal(r.status, 2)
    assert.match(r.stderr, /--max-bytes applies to --protocol only/)
  })
})

describe('README: Gateways', () => {
  test('every quick start (one per protocol, and the bytes one) is a type-checked fixture file, character for character', () => {
    const readme = fs.readFileSync(path.join(here, '..', 'README.md'), 'utf8')
    const start = readme.indexOf('## Gateways')
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
    const blocks = [...section.matchAll(/(?:<!-- checked: (\S+) -->\n)?```ts\n([\s\S]*?)```/g)]
    assert.deepEqual(blocks.map((b) => b[1]), ['request', 'anthropic', 'responses', 'gemini', 'bytes'].map((q) => `__test__/fixtures/quickstart/gateway-${q}.mts`))
    for (const [, file, code] of blocks) assert.equal(code, fs.readFileSync(path.join(here, '..', file), 'utf8'))
  })
})
