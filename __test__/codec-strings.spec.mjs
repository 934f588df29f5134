// The skeleton's string channel crosses as bytes js/codec.js writes itself (no JS string is built
// and transcoded by Node-API): each string's UTF-8 after a SEP byte, a string holding SEP as its
// JSON, a lone surrogate as its private-use stand-in. These check the bytes against that
// definition, computed here independently (TextEncoder of the string), and that the pass still
// tells apart what only those characters tell apart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { th } from './fixtures/helpers.mjs'

const require = createRequire(import.meta.url)
const codec = require('../js/codec.js')
const native = require('../binding.js')

th.setOpenClawVersion('2026.3.23')

const SEP = '\x1f'
const utf8 = (s) => Array.from(new TextEncoder().encode(s))
// What the channel holds for one string: SEP, then its text (JSON when it holds SEP), lone
// surrogates mapped (a JSON text is made of the mapped string, so it holds none).
const expected = (s) => SEP + (s.includes(SEP) ? JSON.stringify(codec.toPrivate(s)) : codec.toPrivate(s))

// Pieces that each take another path through the writer: ASCII, 2-, 3- and 4-byte UTF-8, SEP,
// lone high and low surrogates, a pair, the last code points before each length changes.
const PIECES = ['a', 'Z', '~', '\x00', '\x7f', 'é', '\u07ff', '\u0800', '中文', '\uffff', '\uD83D\uDE00', '\uDBFF\uDFFF', '\uD800', '\uDC00', '\uDBFF', '\uDFFF', SEP, '"', '\\', '\n']

function* strings() {
  let seed = 13
  const pick = (k) => ((seed = (seed * 1103515245 + 12345) >>> 0) % k)
  for (const p of PIECES) yield p
  for (const p of PIECES) for (const q of PIECES) yield p + q
  for (let k = 0; k < 400; k++) {
    let s = ''
    for (let i = pick(24); i > 0; i--) s += PIECES[pick(PIECES.length)]
    yield s
  }
}

test('an id crosses as its UTF-8 after a SEP: Chinese, astral, SEP and lone surrogates', () => {
  for (const id of strings()) {
    const k = codec.encode([{ role: 'toolResult', toolCallId: id, content: [] }])
    assert.deepEqual(Array.from(k.strs), utf8(expected(id)), JSON.stringify(id))
    // A lone surrogate outside a JSON text is what makes Rust's strings map back.
    assert.equal(k.lone, !id.includes(SEP) && !id.isWellFormed(), JSON.stringify(id))
  }
})

test('a text head is the first 4,096 units: a pair cut there crosses as a lone surrogate', () => {
  const provenance = { kind: 'inter_session', sourceSessionKey: 'k' }
  for (const tail of ['\uD83D\uDE00', '中', SEP, 'x']) {
    for (const before of [4094, 4095, 4096]) {
      const text = 'a'.repeat(before) + tail + 'b'.repeat(8)
      const k = codec.encode([{ role: 'user', provenance, content: [{ type: 'text', text }] }])
      const head = text.length > 4096 ? text.slice(0, 4096) : text
      assert.deepEqual(Array.from(k.strs).slice(-utf8(expected(head)).length), utf8(expected(head)), `${before} + ${JSON.stringify(tail)}`)
    }
  }
})

test('Rust refuses a string channel that is not UTF-8, naming it', () => {
  const messages = [{ role: 'toolResult', toolCallId: 'c1', content: [] }]
  const k = codec.encode(messages)
  const codes = k.codes.slice()
  const reals = k.reals.slice()
  const bad = Uint8Array.from(k.strs)
  bad[bad.length - 1] = 0xff
  assert.throws(() => native.runTranscript(messages, codes, reals, bad, 'sanitizeSessionHistory', '{}', new Float64Array(64)), /strs: not UTF-8/)
})

test('ids told apart only by characters past ASCII pair with their own calls', () => {
  // Each pair of ids differs in one piece the byte writer encodes on its own path; a wrong byte
  // would pair a result with the other call, or leave both unpaired (synthetic errors inserted).
  const ids = [
    ['调用_一', '调用_二'],
    ['c\uD83D\uDE00', 'c\uD83D\uDE01'],
    ['c\u07ff', 'c\u0800'],
    [`c${SEP}1`, `c${SEP}2`],
    ['c\uD800', 'c\uDC00'],
  ]
  for (const [a, b] of ids) {
    const call = (id) => ({ type: 'toolCall', id, name: 'read', arguments: { path: '说明.md' } })
    const result = (id, text) => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, timestamp: 3 })
    const messages = [{ role: 'user', content: '读取', timestamp: 1 }, { role: 'assistant', content: [call(a), call(b)], stopReason: 'toolUse', timestamp: 2 }, result(b, '二'), result(a, '一')]
    const out = th.sanitizeSessionHistory({ messages, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' })
    // Results follow their calls' order, each carrying its call's id (as the policy rewrote it);
    // neither is synthetic.
    assert.equal(out.length, 4, JSON.stringify([a, b]))
    const [first, second] = out[1].content.map((c) => c.id)
    assert.notEqual(first, second)
    assert.deepEqual(
      out.slice(2).map((m) => [m.toolCallId, m.content[0].text]),
      [
        [first, '一'],
        [second, '二'],
      ],
      JSON.stringify([a, b]),
    )
  }
})
