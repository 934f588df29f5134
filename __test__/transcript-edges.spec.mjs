// Edge cases of the transcript pass found by running OpenClaw 2026.3.23-2's own cases and real
// sessions side by side (the expected outputs are OpenClaw's), and by reading the boundary.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { th } from './fixtures/helpers.mjs'
import { makeTranscript } from './fixtures/transcripts.mjs'

// The expected outputs are OpenClaw 2026.3.23-2's: pinned, whatever the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const ANTHROPIC = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
const RESPONSES = { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' }
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
const call = (id, name = 'read') => ({ type: 'toolCall', id, name, arguments: { path: '说明.md' } })
const result = (id, text = '内容') => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, timestamp: 3 })

describe('when every message is dropped, the result is empty', () => {
  test('repairToolCallInputs: the only assistant calls a tool outside allowedToolNames', () => {
    const messages = [{ role: 'assistant', content: [call('c1', 'write')], stopReason: 'toolUse', usage }]
    const r = th.repairToolCallInputs(messages, { allowedToolNames: ['read'] })
    assert.equal(r.droppedAssistantMessages, 1)
    assert.deepEqual(r.messages, [])
    // Its twin: an allowed call stays, as the very same object.
    const kept = th.repairToolCallInputs([{ ...messages[0], content: [call('c1', 'read')] }], { allowedToolNames: ['read'] })
    assert.equal(kept.droppedAssistantMessages, 0)
    assert.equal(kept.messages.length, 1)
  })

  test('sanitizeSessionHistory: a history of one orphan OpenAI reasoning block', () => {
    const messages = [{ role: 'assistant', content: [{ type: 'thinking', thinking: '', thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) }], stopReason: 'stop', usage, timestamp: 1 }]
    assert.deepEqual(th.sanitizeSessionHistory({ messages, ...RESPONSES }), [])
  })
})

test('the result of an aborted turn followed by a user turn stays (OpenClaw returns its input when nothing else changed)', () => {
  const rows = [
    // [stopReason, another change in the transcript, result kept]
    ['aborted', false, true],
    ['error', false, true],
    ['aborted', true, false],
    ['toolUse', false, true],
  ]
  for (const [stopReason, orphan, kept] of rows) {
    const messages = [
      ...(orphan ? [result('stray')] : []),
      { role: 'user', content: '读取文件', timestamp: 1 },
      { role: 'assistant', content: [call('call1')], stopReason, usage, timestamp: 2 },
      result('call1'),
      { role: 'user', content: '继续', timestamp: 4 },
    ]
    const out = th.sanitizeSessionHistory({ messages, ...ANTHROPIC })
    assert.equal(out.some((m) => m.role === 'toolResult' && m.toolCallId === 'call1'), kept, `${stopReason}, orphan ${orphan}`)
  }
})

describe('ids differing only in lone surrogates stay distinct', () => {
  test('both results are kept, nothing changes', () => {
    const messages = [
      { role: 'assistant', content: [call('a\uD800'), call('a\uD801')], stopReason: 'toolUse' },
      result('a\uD800', 'one'),
      result('a\uD801', 'two'),
    ]
    const r = th.repairToolUseResultPairing(messages)
    assert.equal(r.droppedDuplicateCount, 0)
    assert.equal(r.messages.length, 3)
    assert.ok(r.messages.every((m, i) => m === messages[i]))
  })

  test('a synthetic result carries the call id exactly, lone surrogate included', () => {
    const messages = [{ role: 'assistant', content: [call('a\uD800'), call('a\uD801')], stopReason: 'toolUse' }, result('a\uD801')]
    const out = th.repairToolUseResultPairing(messages).messages
    assert.deepEqual(out.map((m) => m.toolCallId), [undefined, 'a\uD800', 'a\uD801'])
  })

  test('a plane-16 character without a lone surrogate in the call is left as it is', () => {
    const messages = [{ role: 'assistant', content: [call('b\u{10F800}')], stopReason: 'toolUse' }]
    assert.equal(th.repairToolUseResultPairing(messages).messages[1].toolCallId, 'b\u{10F800}')
  })
})

describe('a getter that calls this package while a call is under way', () => {
  const inner = () => th.sanitizeSessionHistory({ messages: makeTranscript(30), ...ANTHROPIC }).length

  test('while the plan is applied (an unknown field of a message a rule changes)', () => {
    const plain = [{ role: 'user', content: '你好', timestamp: 1 }, { role: 'assistant', content: [{ type: 'text', text: '好的' }], stopReason: 'stop', timestamp: 2 }]
    const expected = th.sanitizeSessionHistory({ messages: plain, ...ANTHROPIC })
    let calls = 0
    const withGetter = plain.map((m) => ({ ...m }))
    Object.defineProperty(withGetter[1], 'meta', { enumerable: true, get: () => (calls++, inner()) })
    const out = th.sanitizeSessionHistory({ messages: withGetter, ...ANTHROPIC })
    assert.ok(calls > 0, 'the getter ran')
    const { meta, ...rest } = out[1]
    assert.equal(meta, 30)
    assert.deepEqual([out[0], rest], expected)
  })

  test('while the skeleton is written (a block text getter)', () => {
    const messages = makeTranscript(12)
    const expected = th.sanitizeSessionHistory({ messages, ...ANTHROPIC })
    const copy = messages.slice()
    const b = { type: 'text' }
    Object.defineProperty(b, 'text', { enumerable: true, get: () => (inner(), 'Step 0') })
    copy[0] = { ...messages[0], content: [b] }
    const out = th.sanitizeSessionHistory({ messages: copy, ...ANTHROPIC })
    assert.equal(out.length, expected.length)
    assert.deepEqual(out.slice(1), expected.slice(1))
  })
})

describe('session entries', () => {
  test('only the entries the pass reads are read', () => {
    let reads = 0
    const bulky = { get payload() { reads++; return 'x'.repeat(100) } }
    const entries = [
      { type: 'custom', customType: 'model-snapshot', data: { timestamp: 1, ...ANTHROPIC } },
      ...Array.from({ length: 50 }, () => ({ type: 'custom', customType: 'openclaw.cache-ttl', data: bulky })),
    ]
    const appended = []
    const sessionManager = { getEntries: () => entries, appendCustomEntry: (t, d) => appended.push([t, d]) }
    th.sanitizeSessionHistory({ messages: makeTranscript(6), ...ANTHROPIC, sessionManager })
    assert.equal(reads, 0)
    assert.deepEqual(appended, [], 'the snapshot matches: nothing appended')
  })

  test('an entry the pass does not read cannot make it lose the ones it does', () => {
    const entries = [{ type: 'custom', customType: 'other', data: { n: 1n } }]
    const appended = []
    const sessionManager = { getEntries: () => entries, appendCustomEntry: (t, d) => appended.push([t, d]) }
    th.sanitizeSessionHistory({ messages: makeTranscript(6), ...ANTHROPIC, sessionManager })
    assert.deepEqual(appended.map(([t]) => t), ['model-snapshot'])
  })
})

test('usage with the standard numbers comes back as the very same message, extra fields and all', () => {
  const rows = [
    { ...usage, cacheWrite1h: 12 },
    { ...usage, reasoning: 40 },
    { ...usage, cost: { ...usage.cost, totalTokens: 15 } },
  ]
  for (const u of rows) {
    const messages = [{ role: 'user', content: '你好', timestamp: 1 }, { role: 'assistant', content: [{ type: 'text', text: '好的' }], stopReason: 'stop', usage: u, timestamp: 2 }]
    const r = th.sanitizeSessionHistory({ messages, ...ANTHROPIC, report: true })
    assert.equal(r.messages[1], messages[1], JSON.stringify(u))
    assert.deepEqual(r.changes, [])
  }
  // The twin: a usage without the standard numbers is rebuilt.
  const partial = [{ role: 'assistant', content: [{ type: 'text', text: '好的' }], stopReason: 'stop', usage: { input_tokens: 3, cacheWrite1h: 1 }, timestamp: 2 }]
  assert.notEqual(th.sanitizeSessionHistory({ messages: partial, ...ANTHROPIC })[0], partial[0])
})

test('a thinking signature is read whole only when it opens with `{`; any other crosses as its presence', () => {
  const rs = JSON.stringify({ id: 'rs_1', type: 'reasoning' })
  const rows = [
    // [thinkingSignature, an OpenAI reasoning item (the orphan block and its message are dropped)]
    [rs, true],
    [`  \n${rs} `, true],
    [`\uFEFF\u00A0${rs}`, true],
    [` x${rs}`, false],
    ['E'.repeat(2000), false],
    ['   ', false],
    ['', false],
    [{ id: 'rs_1', type: 'reasoning' }, true],
  ]
  for (const [sig, dropped] of rows) {
    const assistant = { role: 'assistant', content: [{ type: 'thinking', thinking: '想', thinkingSignature: sig }], stopReason: 'stop', usage, timestamp: 2 }
    const messages = [{ role: 'user', content: '问', timestamp: 1 }, assistant]
    const out = th.downgradeOpenAIReasoningBlocks(messages)
    if (dropped) assert.deepEqual(out, [messages[0]], JSON.stringify(sig))
    else assert.equal(out[1], assistant, JSON.stringify(sig))
  }
})

test('a usage in the normalised shape and its near-misses keep their objects or are rebuilt as before', () => {
  // The codec sends the normalised shape as its numbers; anything else goes as the object.
  const rows = [
    // [usage, the message comes back as itself]
    [usage, true],
    [{ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 }, true],
    [{ input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cacheWrite1h: 2 }, true],
    [{ ...usage, cost: { ...usage.cost, total: Infinity } }, false],
    [{ input: -1, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 }, false],
    [{ input_tokens: 10, output_tokens: 5 }, false],
  ]
  for (const [u, same] of rows) {
    const assistant = { role: 'assistant', content: [{ type: 'text', text: '答' }], stopReason: 'stop', usage: u, timestamp: 2 }
    const messages = [{ role: 'user', content: '问', timestamp: 1 }, assistant]
    for (const openclawVersion of ['2026.3.23', '2026.9.6']) {
      const out = th.sanitizeSessionHistory({ messages, ...ANTHROPIC, openclawVersion })
      assert.equal(out[1] === assistant, same, `${JSON.stringify(u)} ${openclawVersion}`)
    }
  }
})

test('a checkpoint index JS cannot turn into a string (a symbol in an array) reads as no number: set to 0, nothing thrown, input untouched', () => {
  const replay = { type: 'anthropic-compaction', replayIndex: [Symbol('索引')], summary: '摘要' }
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
  const owner = { role: 'assistant', content: [{ type: 'text', text: '压缩之后' }], stopReason: 'stop', usage, timestamp: 2, providerReplay: replay }
  const messages = [{ role: 'user', content: '继续', timestamp: 1 }, owner]
  const out = th.sanitizeSessionHistory({ messages, provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b', openclawVersion: '2026.9.6' })
  assert.deepEqual(out[1].providerReplay, { type: 'anthropic-compaction', replayIndex: 0, summary: '摘要' })
  assert.equal(owner.providerReplay, replay)
  assert.equal(typeof replay.replayIndex[0], 'symbol')
  // Its twin with an index JS reads as 1 stays as written, the very same message.
  const twin = { ...owner, providerReplay: { ...replay, replayIndex: 1 } }
  assert.equal(th.sanitizeSessionHistory({ messages: [messages[0], twin], provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b', openclawVersion: '2026.9.6' })[1], twin)
})

describe('calls on one thread do not see each other', () => {
  // The boundary keeps a call's working model and reads the next call's skeleton over it,
  // message by message: longer, shorter, other roles and block shapes in every slot.
  test('each answer equals the answer after a call on nothing', () => {
    const odd = [
      { role: 'user', content: '请读取说明', timestamp: 1, provenance: { kind: 'inter_session', sourceSession: '会话-7' } },
      { role: 'assistant', content: [{ type: 'text', text: '' }, call('call_甲|fc_1'), call('call_甲|fc_1')], stopReason: 'toolUse', usage, timestamp: 2 },
      result('call_甲|fc_1', '第一'),
      { role: 'assistant', content: '字符串内容', stopReason: 'stop', timestamp: 4 },
    ]
    const inputs = [makeTranscript(240), odd, makeTranscript(37), [], makeTranscript(241).reverse(), odd.slice(1)]
    const fresh = inputs.map((messages) => {
      th.sanitizeSessionHistory({ messages: [], ...ANTHROPIC })
      return th.sanitizeSessionHistory({ messages, ...RESPONSES })
    })
    for (const order of [[0, 1, 2, 3, 4, 5], [4, 5, 1, 0, 2, 3, 4]]) {
      for (const k of order) assert.deepEqual(th.sanitizeSessionHistory({ messages: inputs[k], ...RESPONSES }), fresh[k], `input ${k}`)
    }
    // Its twin: the same transcript twice gives the same answer, the kept model its own.
    assert.deepEqual(th.sanitizeSessionHistory({ messages: inputs[0], ...RESPONSES }), th.sanitizeSessionHistory({ messages: inputs[0], ...RESPONSES }))
  })
})
