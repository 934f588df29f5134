// sanitizeRequestBuffer: the gateway's bytes in, bytes out. It must agree with sanitizeRequest on
// every body (the real-error fixtures, then generated bodies of every protocol), copy what no
// rule touched byte for byte, hand back the very Buffer when nothing changes, and refuse bad JSON
// with the path and the byte.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { firstRunOnly, th } from './fixtures/helpers.mjs'
import { encodePng } from './fixtures/png.mjs'

const { sanitizeRequest, sanitizeRequestBuffer } = th
const here = path.dirname(fileURLToPath(import.meta.url))
const load = (file) => {
  const all = JSON.parse(fs.readFileSync(path.join(here, 'fixtures/wire', file), 'utf8'))
  return all.cases.map((c) => ({ ...c, protocol: all.protocol }))
}
const FIXTURES = [...load('openai-chat.json'), ...load('anthropic.json'), ...load('openai-responses.json'), ...load('gemini.json')]

/** Both entry points on one body: the object path's answer and the bytes path's, parsed. */
function both(body, text, options) {
  const obj = sanitizeRequest(body, { ...options, report: true })
  const buf = Buffer.from(text)
  const bytes = sanitizeRequestBuffer(buf, { ...options, report: true })
  return { obj, bytes, buf }
}

describe('sanitizeRequestBuffer: the fixtures of real provider errors', () => {
  for (const c of FIXTURES) {
    test(`${c.protocol}: ${c.name}`, () => {
      const text = JSON.stringify(c.body, null, 2)
      const { obj, bytes, buf } = both(c.body, text, { protocol: c.protocol, ...c.target })
      assert.deepEqual(JSON.parse(bytes.body.toString('utf8')), obj.body)
      assert.deepEqual(bytes.changes, obj.changes)
      if (c.same) assert.equal(bytes.body, buf, 'a body that needs nothing comes back as the same Buffer')
    })
  }
})

// ---- generated bodies ----

function rng(seed) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TEXTS = ['你好，帮我查一下天气', 'ok', '', '  ', '看这张图 "引号" \\ 反斜杠', 'line\nbreak', '🙂 emoji']
const NAMES = ['get_weather', 'read_file']
const IDS = ['call_0fypS1hVX', 'call_2', 'toolu_01A09q90qw90lq917835lq9', 'fc-1|x', 'abc123def', 'call_very_long_identifier_0123456789']
const TARGETS = [
  { provider: 'mistral' },
  { provider: 'xai', modelId: 'grok-4' },
  { provider: 'openai' },
  { provider: 'google', modelId: 'gemini-2.5-pro' },
  { provider: 'anthropic' },
  { provider: 'vllm' },
  { provider: 'openrouter', modelId: 'google/gemini-2.5-flash' },
  { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  // Images over a 16 px side are re-encoded (the PNG below is 24×16); the release is pinned.
  { provider: 'openai', maxDimensionPx: 16, openclawVersion: '2026.9.6' },
  { provider: 'anthropic', maxDimensionPx: 16, openclawVersion: '2026.3.23' },
  { provider: 'google', modelId: 'gemini-3-pro-preview' },
  { modelId: 'deepseek-reasoner' },
  { provider: 'vllm', modelId: 'qwen3-32b', model: { reasoning: true } },
  // Closed schemas (every reasoning field / extra_content goes) and Vertex's signatures on Gemini 3.
  { modelId: 'magistral-medium-latest' },
  { provider: 'fireworks', modelId: 'accounts/fireworks/models/deepseek-v3p1' },
  { modelId: 'google/gemini-3-flash-preview' },
  { provider: 'anthropic', maxDimensionPx: 16, openclawVersion: '2026.9.6' },
]
// Image payloads: a real PNG, PNG magic alone (undecodable), not base64, empty, with whitespace.
const PNG = encodePng(24, 16).toString('base64')
const B64S = [PNG, PNG, 'iVBORw0KGgo=', '5Zu+54mH!!', '', `${PNG.slice(0, 40)}\n${PNG.slice(40)}`]
// Image URLs: base64 data URLs of those, a remote URL, a data URL that is not base64.
const URLS = [...B64S.map((b) => `data:image/png;base64,${b}`), 'https://example.com/图.png', 'data:image/svg+xml,%3Csvg%2F%3E']
const MIMES = ['image/png', 'image/jpeg']
// Gemini thought signatures: Gemini's own (base64), a Claude id (foreign), the stand-in, none; either key.
const THOUGHT_SIGS = [{ thoughtSignature: 'c2ln' }, { thought_signature: 'msg_01X' }, { thoughtSignature: 'skip_thought_signature_validator' }, { thoughtSignature: 'msg_01XFDUDYJgAACzvnptvVoYEL' }, {}, {}]
// Reasoning as clients replay it: signed, with an empty or no signature (Anthropic rejects both).
const SIGNED = [{ signature: 'EqQBCkYIBxgCKkA=' }, { signature: '' }, {}]

function gen(r, protocol) {
  const pick = (a) => a[Math.floor(r() * a.length)]
  const n = Math.floor(r() * 9)
  const msgs = []
  const extra = () => (r() < 0.2 ? { x: { n: 1.5, k: [1, 'a'] } } : {})
  for (let i = 0; i < n; i++) {
    const kind = pick(['user', 'user', 'assistant', 'call', 'result', 'system'])
    if (protocol === 'openai-chat') {
      if (kind === 'user') msgs.push({ role: 'user', content: r() < 0.5 ? pick(TEXTS) : [{ type: 'text', text: pick(TEXTS) }, { type: 'image_url', image_url: r() < 0.2 ? pick(URLS) : { url: pick(URLS), ...(r() < 0.3 ? { detail: 'low' } : {}) } }], ...extra() })
      else if (kind === 'assistant') msgs.push({ role: 'assistant', content: r() < 0.3 ? [{ type: 'thinking', thinking: r() < 0.5 ? '想一想' : [{ type: 'text', text: '想一想' }] }, { type: 'text', text: pick(TEXTS) }] : pick(TEXTS), ...(r() < 0.2 ? { tool_calls: [] } : {}), ...pick([{}, { reasoning_content: '先想一想' }, { reasoning: '推理' }, { reasoning_content: null }, { reasoning_details: [{ type: 'reasoning.text', text: '先想一想', index: 0 }] }, { reasoning_details: [] }, { reasoning: '' }, { reasoning: null, reasoning_details: [] }]) })
      else if (kind === 'call') msgs.push({ role: 'assistant', content: r() < 0.5 ? null : pick(TEXTS), ...(r() < 0.4 ? { reasoning_content: '调用工具' } : r() < 0.3 ? { reasoning_details: [{ type: 'reasoning.encrypted', data: 'CiQB0e2K', index: 0 }] } : r() < 0.2 ? { reasoning_content: null, reasoning_details: [] } : {}), tool_calls: [pick(IDS), pick(IDS)].slice(0, 1 + Math.floor(r() * 2)).map((id) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"北京"}' }, ...pick([{}, {}, { extra_content: { google: { thought_signature: 'CiQB0e2K' } } }, { extra_content: { cache: { ttl: 60 } } }, { extra_content: { google: {} } }, { extra_content: null }, { extra_content: { vertex: { thought_signature: 'AY89a18I' } } }, { extra_content: { vertex: {} } }]) })), ...extra() })
      else if (kind === 'result') msgs.push({ role: 'tool', tool_call_id: pick(IDS), content: pick(TEXTS) })
      else msgs.push({ role: i === 0 ? 'system' : 'developer', content: 'You are helpful. 请用中文回答。' })
    } else if (protocol === 'anthropic') {
      const image = () => ({ type: 'image', source: { type: 'base64', media_type: pick(MIMES), data: pick(B64S) } })
      // URL images count for the more-than-20-images limit.
      const urls = () => Array.from({ length: r() < 0.15 ? 10 + Math.floor(r() * 15) : 0 }, (_, k) => ({ type: 'image', source: { type: 'url', url: `https://example.com/图${k}.png` } }))
      if (kind === 'user' || kind === 'system') msgs.push({ role: 'user', content: r() < 0.5 ? pick(TEXTS) : [{ type: 'text', text: pick(TEXTS) }, ...urls(), ...(r() < 0.4 ? [image()] : [])], ...extra() })
      else if (kind === 'assistant') msgs.push({ role: 'assistant', content: r() < 0.5 ? pick(TEXTS) : [{ type: 'thinking', thinking: '想一想', ...pick(SIGNED) }, ...(r() < 0.3 ? [{ type: 'redacted_thinking', data: pick(['EmwKAhgB', '']) }] : []), { type: 'text', text: pick(TEXTS) }] })
      else if (kind === 'call') msgs.push({ role: 'assistant', content: [...(r() < 0.3 ? [{ type: 'thinking', thinking: '调用工具', ...pick(SIGNED) }] : []), { type: 'text', text: pick(TEXTS) }, { type: 'tool_use', id: pick(IDS), name: 'get_weather', input: { city: '上海' } }] })
      else msgs.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: pick(IDS), content: r() < 0.3 ? [{ type: 'text', text: pick(TEXTS) }, image()] : pick(TEXTS) }, ...(r() < 0.4 ? [{ type: 'text', text: pick(TEXTS) }] : [])] })
    } else if (protocol === 'gemini') {
      const id = () => (r() < 0.5 ? { id: pick(IDS) } : {})
      if (kind === 'user' || kind === 'system') msgs.push({ role: 'user', parts: [{ text: pick(TEXTS), ...(r() < 0.2 ? pick(THOUGHT_SIGS) : {}) }, ...(r() < 0.3 ? [r() < 0.7 ? { inlineData: { mimeType: pick(MIMES), data: pick(B64S) } } : { inline_data: { mime_type: pick(MIMES), data: pick(B64S) } }] : [])], ...extra() })
      else if (kind === 'assistant') msgs.push({ role: 'model', parts: [...(r() < 0.3 ? [{ text: '想一想', thought: true }] : []), { text: pick(TEXTS), ...(r() < 0.2 ? pick(THOUGHT_SIGS) : {}) }] })
      else if (kind === 'call') msgs.push({ role: 'model', parts: [pick(NAMES), pick(NAMES)].slice(0, 1 + Math.floor(r() * 2)).map((name) => (r() < 0.5 ? { ...pick(THOUGHT_SIGS), functionCall: { name, args: { city: '北京' }, ...id() } } : { functionCall: { name, args: { city: '北京' }, ...id() }, ...pick(THOUGHT_SIGS) })) })
      else msgs.push({ role: 'user', parts: [{ functionResponse: { name: pick(NAMES), response: { output: pick(TEXTS) }, ...id(), ...(r() < 0.3 ? { parts: [{ inlineData: { mimeType: pick(MIMES), data: pick(B64S) } }] } : {}) }, ...(r() < 0.2 ? pick(THOUGHT_SIGS) : {}) }, ...(r() < 0.3 ? [{ text: pick(TEXTS) }] : [])] })
    } else {
      const image = () => ({ type: 'input_image', image_url: pick(URLS) })
      if (kind === 'user' || kind === 'system') msgs.push({ role: kind === 'system' ? 'developer' : 'user', content: r() < 0.6 ? pick(TEXTS) : [{ type: 'input_text', text: pick(TEXTS) }, image()], ...extra() })
      else if (kind === 'assistant') msgs.push(r() < 0.5 ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: pick(TEXTS) }] } : { type: 'reasoning', id: 'rs_1', summary: [], ...pick([{}, { encrypted_content: 'gAAAAABpMm18' }, { encrypted_content: '' }]) })
      else if (kind === 'call') msgs.push({ type: 'function_call', call_id: pick(IDS), name: 'get_weather', arguments: '{}' })
      else msgs.push({ type: 'function_call_output', call_id: pick(IDS), output: r() < 0.3 ? [{ type: 'input_text', text: pick(TEXTS) }, image()] : pick(TEXTS) })
    }
  }
  const key = { 'openai-responses': 'input', gemini: 'contents' }[protocol] ?? 'messages'
  const body = { model: 'm', [key]: msgs, temperature: 0.70, ...(r() < 0.3 ? { tools: [] } : {}), ...(r() < 0.3 ? { stream: true } : {}) }
  // The text as a gateway might receive it: compact or indented, each message written on its own.
  const indent = pick([0, 2, '\t'])
  const raws = msgs.map((m) => JSON.stringify(m, null, indent))
  const parts = Object.entries(body).map(([k, v]) => `${JSON.stringify(k)}: ${k === key ? `[${raws.join(',\n ')}]` : JSON.stringify(v)}`)
  return { body, text: `{ ${parts.join(',\n  ')} }`, raws, key, target: pick(TARGETS) }
}

describe('sanitizeRequestBuffer agrees with sanitizeRequest on generated bodies', () => {
  for (const protocol of ['openai-chat', 'anthropic', 'openai-responses', 'gemini']) {
    test(`${protocol}: 150 bodies, untouched messages copied byte for byte`, () => {
      const r = rng(protocol.length * 7919)
      let changed = 0
      for (let k = 0; k < 150; k++) {
        const g = gen(r, protocol)
        const { obj, bytes, buf } = both(g.body, g.text, { protocol, ...g.target })
        const why = `case ${k}: ${g.text}`
        assert.deepEqual(JSON.parse(bytes.body.toString('utf8')), obj.body, why)
        assert.deepEqual(bytes.changes, obj.changes, why)
        // Mistral's closed schema rejects a reasoning key whatever its value (null, [], '').
        if (protocol === 'openai-chat' && (g.target.provider === 'mistral' || g.target.modelId?.startsWith('magistral-'))) {
          for (const m of obj.body.messages) for (const k of ['reasoning_content', 'reasoning', 'reasoning_details']) assert.ok(!(k in m), `${why}
${k} sent to Mistral`)
        }
        if (obj.body === g.body) {
          assert.equal(bytes.body, buf, why)
          continue
        }
        changed++
        const out = bytes.body.toString('utf8')
        for (const m of obj.body[g.key] ?? []) {
          const i = g.body[g.key].indexOf(m)
          if (i >= 0) assert.ok(out.includes(g.raws[i]), `${why}\nmessage ${i} kept as written`)
        }
      }
      assert.ok(changed > 30, `only ${changed} of 150 bodies needed a repair`)
    })
  }
})

describe('sanitizeRequestBuffer: what it takes and gives back', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: '你好' }] }
  test('a Uint8Array works, and an untouched one comes back as a Buffer over the same memory', () => {
    const u8 = new TextEncoder().encode(JSON.stringify(body))
    const out = sanitizeRequestBuffer(u8, { protocol: 'openai-chat' })
    assert.ok(Buffer.isBuffer(out))
    assert.equal(out.buffer, u8.buffer)
    assert.equal(out.toString(), JSON.stringify(body))
  })
  test('the input is never changed', () => {
    const text = JSON.stringify({ tools: [], ...body })
    const buf = Buffer.from(text)
    const out = sanitizeRequestBuffer(buf, { protocol: 'openai-chat' })
    assert.equal(buf.toString(), text)
    assert.equal(out.toString(), JSON.stringify(body))
  })
})

describe('sanitizeRequestBuffer: bad bodies are TypeErrors naming the path and the byte', () => {
  const o = { protocol: 'openai-chat' }
  const cases = [
    ['truncated in a string', '{"messages": [{"role": "user", "content": "天气', /^body\.messages\[0\]\.content: expected a closing quote, got the end of the body \(byte 49\)$/],
    ['truncated after a message', '{"messages": [{"role": "user", "content": "x"},', /^body\.messages\[1\]: expected a JSON value, got the end of the body \(byte 47\)$/],
    ['duplicate keys', '{"messages": [{"role": "user", "role": "tool", "content": "x"}]}', /^body\.messages\[0\]: expected each key once, got "role" a second time \(byte 31\)$/],
    ['a lone high surrogate', '{"messages": [{"role": "user", "content": "a\\ud83d"}]}', /^body\.messages\[0\]\.content: expected a low surrogate \\uDC00-\\uDFFF after it, got a lone \\uD83D \(byte 44\)$/],
    ['a lone low surrogate', '{"messages": [{"role": "user", "content": "\\ude00"}]}', /^body\.messages\[0\]\.content: expected a high surrogate before this low one, got a lone \\uDE00 \(byte 43\)$/],
    ['nesting 300 deep', `{"messages": [], "x": ${'['.repeat(300)}${']'.repeat(300)}}`, /^body\.x(\[0\])+: expected at most 256 levels of nesting, got '\[' \(byte \d+\)$/],
    ['a second value', '{"messages": []} {}', /^body: expected the end of the body after its JSON value, got '\{' \(byte 17\)$/],
    ['the shape, not the syntax', '{"messages": [{"role": 1}]}', /^body\.messages\[0\]\.role: expected a string, got a number$/],
  ]
  for (const [name, text, re] of cases) {
    test(name, () => assert.throws(() => sanitizeRequestBuffer(Buffer.from(text), o), (e) => e instanceof TypeError && re.test(e.message)))
  }
  test('bytes that are not UTF-8, and a body that is not bytes', () => {
    const bad = Buffer.concat([Buffer.from('{"messages": [{"role": "user", "content": "'), Buffer.from([0xff]), Buffer.from('"}]}')])
    assert.throws(() => sanitizeRequestBuffer(bad, o), /^TypeError: body: expected UTF-8 text, got an invalid byte \(byte 43\)$/)
    assert.throws(() => sanitizeRequestBuffer('{"messages": []}', o), /^TypeError: body: expected a Buffer or Uint8Array \(the request body as UTF-8 JSON\), got string$/)
  })
  test('a 100 MB body (screenshots): repaired, memory bounded by a copy of the body', { skip: firstRunOnly('the body is read and written in Rust') }, () => {
    // A real PNG's head (its base64 unpadded: 32×16 is 3k bytes) over 8 MB: the image step keeps it
    // from its head under a 200 MB limit, so only the orphan goes.
    const shot = encodePng(32, 16).toString('base64') + 'A'.repeat(11_000_000)
    const msgs = []
    for (let i = 0; i < 10; i++) msgs.push({ role: 'user', content: [{ type: 'text', text: `截图 ${i}` }, { type: 'image_url', image_url: { url: `data:image/png;base64,${shot}` } }] })
    msgs.push({ role: 'tool', tool_call_id: 'gone', content: 'orphan' })
    const buf = Buffer.from(JSON.stringify({ model: 'm', messages: msgs }))
    assert.ok(buf.length > 100_000_000)
    const before = process.memoryUsage()
    const out = sanitizeRequestBuffer(buf, { protocol: 'openai-chat', provider: 'openai', maxBytes: 200_000_000 })
    const grew = process.memoryUsage().rss - before.rss
    assert.equal(out.length, buf.length - JSON.stringify(msgs[10]).length - 1, 'only the orphan result is gone')
    assert.ok(grew < 2.5 * buf.length, `memory grew by ${grew} bytes for a ${buf.length}-byte body`)
  })
})
