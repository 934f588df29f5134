// The codec leaves out of the skeleton the fields no rule of the call's policy reads
// (src/transcript/read_set.rs decides; js/read-set.js asks it once per set of options). Here every
// policy family runs on the parity transcripts and on a varied generated corpus twice, with those
// fields left out and with the whole skeleton, and the native answers (plan JSON, plan numbers,
// texts, report) must be identical. The Rust side runs the same comparison on its model
// (`read_set::tests`); this one covers the codec's placeholders and the cache in front of Rust.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { makeTranscript } from './fixtures/transcripts.mjs'

const require = createRequire(import.meta.url)
const native = require('../binding.js')
const codec = require('../js/codec.js')
const readSet = require('../js/read-set.js')
const { toJson } = require('../js/args.js')

const V = '2026.3.23'
const CALLS = [
  { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  { provider: 'openai', modelApi: 'openai-codex-responses', modelId: 'gpt-5.2-codex' },
  { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-5' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
  { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'google/gemini-2.5-pro' },
  { provider: 'kimi', modelApi: 'anthropic-messages', modelId: 'kimi-k2' },
  { provider: 'deepseek', modelApi: 'openai-responses', modelId: 'deepseek-chat' },
  {},
]
// A caller's own policy, both ways for each flag the read set depends on.
const GIVEN = [undefined]
for (const sanitizeMode of ['full', 'images-only']) {
  for (const preserveSignatures of [false, true]) {
    GIVEN.push({ sanitizeMode, preserveSignatures, sanitizeToolCallIds: true, toolCallIdMode: 'strict', repairToolUseResultPairing: true, sanitizeThoughtSignatures: { allowBase64Only: true, includeCamelCase: true }, applyGoogleTurnOrdering: true })
  }
}

/** A deterministic history holding what the left-out fields can hold, on blocks of every role. */
function corpus(seed, n) {
  let s = seed
  const pick = (k) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    return (s >> 8) % k
  }
  const thoughts = [undefined, 'Q2xhdWRl', 'msg_abc', 'not base64!', '']
  const sigs = [undefined, '', 'c2lnbmF0dXJl', '{"id":"rs_1","type":"reasoning"}', ' {"id":"rs_2","type":"reasoning.summary"} ', { id: 'rs_3', type: 'reasoning' }, { id: 'x', type: 'other' }]
  const signed = (b) => {
    const a = thoughts[pick(thoughts.length)]
    const c = thoughts[pick(thoughts.length)]
    if (a !== undefined) b.thought_signature = a
    if (c !== undefined) b.thoughtSignature = c
    return b
  }
  const out = []
  for (let k = 0; out.length < n; k++) {
    out.push({ role: 'user', content: pick(3) === 0 ? `问题 ${k}` : [signed({ type: 'text', text: `q${k}` })], timestamp: k })
    const blocks = []
    for (let j = pick(3); j > 0; j--) {
      const b = { type: 'thinking', thinking: ['', '  ', '想一想'][pick(3)] }
      const sig = sigs[pick(sigs.length)]
      if (sig !== undefined) b.thinkingSignature = sig
      blocks.push(signed(b))
    }
    if (pick(4) === 0) blocks.push({ type: 'redacted_thinking', data: 'opaque' })
    blocks.push(signed({ type: 'text', text: ['', 'answer', ' '][pick(3)] }))
    const calls = pick(3)
    for (let c = 0; c < calls; c++) blocks.push(signed({ type: 'toolCall', id: `call_${k}|fc_${c}`, name: 'read', arguments: {} }))
    if (pick(4) === 0) blocks.push({ type: 'thinking', thinking: 'late', thinkingSignature: sigs[3 + pick(4)] })
    out.push({ role: 'assistant', content: blocks, stopReason: ['toolUse', 'stop', 'error', 'aborted'][pick(4)], timestamp: k })
    for (let c = 0; c < calls; c++) {
      if (pick(5) === 0) continue
      out.push({ role: 'toolResult', toolCallId: `call_${k}|fc_${c}`, toolName: 'read', content: [signed({ type: 'text', text: 'ok' })], isError: false, timestamp: k })
    }
  }
  return out
}

/** What runTranscript answers for `messages` with `config`, the fields `unread` names left out. */
function answer(messages, config, unread) {
  const k = codec.encode(messages, 'messages', false, false, unread)
  const size = k.codes.byteLength + k.reals.byteLength + k.strs.length
  const buf = new Float64Array(1 << 16)
  const text = native.runTranscript(messages, k.codes.slice(), k.reals.slice(), k.strs, 'sanitizeSessionHistory', config, buf)
  const nums = buf[0] >= 0 ? Array.from(buf[1] === 0 ? buf.subarray(4, 4 + buf[0]) : native.takeTranscriptPlan()) : null
  return { size, same: { text, head: Array.from(buf.subarray(0, 4)), nums } }
}

test('every policy gives the same answer with its unread fields left out as with the whole skeleton', () => {
  const transcripts = { 'generated, 300 messages': makeTranscript(300) }
  for (let seed = 1; seed <= 8; seed++) transcripts[`corpus ${seed}`] = corpus(seed, 60)
  let smaller = 0
  for (const call of CALLS) {
    for (const policy of GIVEN) {
      const o = { ...call, openclawVersion: V, report: true, ...(policy ? { policy } : {}) }
      const config = toJson({ ...o, sessionEntries: [], now: 7 }, 'options')
      const unread = readSet.unread('sanitizeSessionHistory', o, V)
      assert.equal(unread, native.transcriptUnread('sanitizeSessionHistory', config), JSON.stringify(o))
      for (const [name, messages] of Object.entries(transcripts)) {
        const left = answer(messages, config, unread)
        const whole = answer(messages, config, 0)
        assert.deepEqual(left.same, whole.same, `${name} / ${JSON.stringify(o)} / unread ${unread}`)
        if (left.size < whole.size) smaller++
      }
    }
  }
  // The fields are left out (the skeleton shrinks) for most of these.
  assert.ok(smaller > 0)
})

test('the read set leaves out the thinking text for every 2026.3.23 policy and nothing for 2026.9.6 or another operation', () => {
  const codes = native.transcriptSkeletonCodes()
  for (const call of CALLS) {
    assert.ok(readSet.unread('sanitizeSessionHistory', call, V) & codes.unreadThinkingText, JSON.stringify(call))
    assert.equal(readSet.unread('sanitizeSessionHistory', call, '2026.9.6'), 0)
    assert.equal(readSet.unread('dropThinkingBlocks', call, V), 0)
  }
  // A Responses API reads the thinking signature; Google's full mode reads thought signatures.
  assert.equal(readSet.unread('sanitizeSessionHistory', CALLS[1], V) & codes.unreadThinkingSignature, 0)
  assert.equal(readSet.unread('sanitizeSessionHistory', CALLS[4], V) & codes.unreadThoughtSignatures, 0)
})
