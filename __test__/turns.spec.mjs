// Turn validation, merging, Google turn ordering and the history limit (§4.4, §4.8, §3.2).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, toolResult, text, runFrozen, roles, fakeSessionManager } from './fixtures/helpers.mjs'

// OpenClaw 2026.3.23-2's rules (openclaw96-history.spec.mjs checks 2026.9.6's): pinned, whatever
// the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const { validateGeminiTurns, validateAnthropicTurns, mergeConsecutiveUserTurns, sanitizeGoogleTurnOrdering, applyGoogleTurnOrderingFix, limitHistoryTurns } = th

const img = (data = 'iVBORw0KGgo=') => ({ type: 'image', data, mimeType: 'image/png' })
const toolUse = (id) => ({ type: 'toolUse', id, name: 'read', input: { path: 'a' } })
const toolResultBlock = (toolUseId) => ({ type: 'toolResult', toolUseId, content: 'ok' })

describe('validateGeminiTurns', () => {
  test('an empty array and a single message come back as the same array', () => {
    const empty = []
    assert.equal(validateGeminiTurns(empty), empty)
    const one = [assistant([text('a')])]
    assert.equal(validateGeminiTurns(one), one)
  })

  test('alternating turns are unchanged (same array)', () => {
    const input = [user('a'), assistant([text('b')]), user('c'), assistant([text('d')])]
    assert.equal(runFrozen(validateGeminiTurns, input), input)
  })

  test('consecutive assistant turns merge into the earlier one, contents concatenated', () => {
    const a = assistant([text('first')], { timestamp: 10, responseId: 'r1' })
    const b = assistant([text('second'), toolCall('c1')], { timestamp: 20, responseId: 'r2' })
    const input = [user('q'), a, b, user('next')]
    const out = runFrozen(validateGeminiTurns, input)
    assert.deepEqual(roles(out), ['user', 'assistant', 'user'])
    assert.equal(out[0], input[0])
    assert.equal(out[2], input[3])
    assert.deepEqual(out[1].content, [a.content[0], b.content[0], b.content[1]])
    assert.equal(out[1].content[0], a.content[0])
    assert.equal(out[1].content[2], b.content[1])
    // The earlier message's own fields stay (timestamp, responseId), in their order.
    assert.equal(out[1].timestamp, 10)
    assert.equal(out[1].responseId, 'r1')
    assert.deepEqual(Object.keys(out[1]), Object.keys(a))
  })

  test('usage, stopReason and errorMessage come from the later turn when truthy', () => {
    const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 }
    const a = assistant([text('a')], { stopReason: 'error', errorMessage: 'boom', usage: { input: 9 } })
    const b = assistant([text('b')], { stopReason: 'stop', usage })
    const out = validateGeminiTurns([a, b])
    assert.equal(out.length, 1)
    assert.equal(out[0].stopReason, 'stop')
    assert.deepEqual(out[0].usage, usage)
    assert.equal(out[0].errorMessage, 'boom')
  })

  test('falsy later metadata does not overwrite the earlier values', () => {
    const a = assistant([text('a')], { stopReason: 'toolUse', errorMessage: 'kept', usage: { input: 1 } })
    const b = assistant([text('b')], { stopReason: '', errorMessage: '', usage: null })
    const out = validateGeminiTurns([a, b])
    assert.equal(out[0].stopReason, 'toolUse')
    assert.equal(out[0].errorMessage, 'kept')
    assert.deepEqual(out[0].usage, { input: 1 })
  })

  test('three consecutive assistants merge into one', () => {
    const out = validateGeminiTurns([user('q'), assistant([text('1')]), assistant([text('2')]), assistant([text('3')])])
    assert.equal(out.length, 2)
    assert.deepEqual(out[1].content.map((b) => b.text), ['1', '2', '3'])
  })

  test('a toolResult between two assistants prevents the merge', () => {
    const input = [assistant([toolCall('c1')]), toolResult('c1'), assistant([text('done')])]
    assert.equal(validateGeminiTurns(input), input)
  })

  test('user turns are not merged', () => {
    const input = [user('a'), user('b')]
    assert.equal(validateGeminiTurns(input), input)
  })

  test('string assistant content is kept as a text block when merged', () => {
    const out = validateGeminiTurns([assistant('plain words'), assistant([text('b')])])
    assert.deepEqual(out[0].content, [{ type: 'text', text: 'plain words' }, { type: 'text', text: 'b' }])
  })
})

describe('validateAnthropicTurns: merging user turns', () => {
  test('an empty array and a single message come back as the same array', () => {
    const empty = []
    assert.equal(validateAnthropicTurns(empty), empty)
    const one = [user('a')]
    assert.equal(validateAnthropicTurns(one), one)
  })

  test('alternating turns are unchanged (same array)', () => {
    const input = [user([text('a')]), assistant([text('b')]), user([text('c')])]
    assert.equal(runFrozen(validateAnthropicTurns, input), input)
  })

  test('two consecutive user turns merge, taking the newer timestamp', () => {
    const input = [
      { role: 'user', content: [text('First message')], timestamp: 1000 },
      { role: 'user', content: [text('Second message')], timestamp: 2000 },
    ]
    const out = runFrozen(validateAnthropicTurns, input)
    assert.deepEqual(out, [{ role: 'user', content: [text('First message'), text('Second message')], timestamp: 2000 }])
    assert.equal(out[0].content[0], input[0].content[0])
    assert.equal(out[0].content[1], input[1].content[0])
  })

  test('three consecutive user turns merge into one', () => {
    const out = validateAnthropicTurns([user([text('1')], { timestamp: 1 }), user([text('2')], { timestamp: 2 }), user([text('3')], { timestamp: 3 }), assistant([text('r')])])
    assert.deepEqual(roles(out), ['user', 'assistant'])
    assert.deepEqual(out[0].content.map((b) => b.text), ['1', '2', '3'])
    assert.equal(out[0].timestamp, 3)
  })

  test("the newest message's metadata wins", () => {
    const older = { role: 'user', content: [text('Old')], timestamp: 1000, provenance: { kind: 'external_user' }, extraOld: 1 }
    const newer = { role: 'user', content: [text('New')], timestamp: 2000, provenance: { kind: 'inter_session' }, extraNew: 2 }
    const out = validateAnthropicTurns([older, newer])
    assert.equal(out.length, 1)
    assert.deepEqual(out[0].provenance, { kind: 'inter_session' })
    assert.equal(out[0].extraNew, 2)
    assert.equal('extraOld' in out[0], false)
    assert.equal(out[0].timestamp, 2000)
  })

  test('images keep their order across the merge', () => {
    const i1 = img('AAAA')
    const i2 = img('BBBB')
    const out = validateAnthropicTurns([user([text('look'), i1]), user([i2, text('and this')])])
    assert.deepEqual(out[0].content, [text('look'), i1, i2, text('and this')])
    assert.equal(out[0].content[1], i1)
    assert.equal(out[0].content[2], i2)
  })

  test('assistant turns are not merged', () => {
    const input = [user('q'), assistant([text('a')]), assistant([text('b')])]
    assert.equal(validateAnthropicTurns(input), input)
  })

  test('steering messages sent after an errored assistant merge into one user turn', () => {
    const input = [
      user([text('do it')], { timestamp: 1 }),
      assistant([], { stopReason: 'error', errorMessage: 'overloaded', timestamp: 2 }),
      user([text('retry please')], { timestamp: 3 }),
      user([text('also check logs')], { timestamp: 4 }),
    ]
    const out = validateAnthropicTurns(input)
    assert.deepEqual(roles(out), ['user', 'assistant', 'user'])
    assert.equal(out[1], input[1])
    assert.deepEqual(out[2].content.map((b) => b.text), ['retry please', 'also check logs'])
    assert.equal(out[2].timestamp, 4)
  })

  test('string-content user turns keep their text (strings become text blocks)', () => {
    const out = validateAnthropicTurns([{ role: 'user', content: 'first', timestamp: 5 }, { role: 'user', content: 'second', timestamp: 6 }])
    assert.deepEqual(out, [{ role: 'user', content: [text('first'), text('second')], timestamp: 6 }])
  })

  test('mixed string and array user turns keep every piece in order', () => {
    const out = validateAnthropicTurns([user([text('a'), img('CCCC')]), user('b')])
    assert.deepEqual(out[0].content, [text('a'), img('CCCC'), text('b')])
  })
})

describe('validateAnthropicTurns: dangling toolUse blocks', () => {
  test('a toolUse not answered by the next user message is stripped', () => {
    const a = assistant([text('let me look'), toolUse('tu1')], { stopReason: 'toolUse' })
    const input = [user('q'), a, user([text('never mind')])]
    const out = runFrozen(validateAnthropicTurns, input)
    assert.deepEqual(out[1].content, [text('let me look')])
    assert.equal(out[1].content[0], a.content[0])
    assert.deepEqual({ ...out[1], content: a.content }, a)
    assert.equal(out[2], input[2])
  })

  test('a toolUse answered by a toolResult block in the next user message is kept', () => {
    const input = [user('q'), assistant([toolUse('tu1')]), user([toolResultBlock('tu1')])]
    assert.equal(validateAnthropicTurns(input), input)
  })

  test('when every block is removed, the content becomes "[tool calls omitted]"', () => {
    const out = validateAnthropicTurns([user('q'), assistant([toolUse('tu1')]), user([text('hi')])])
    assert.deepEqual(out[1].content, [{ type: 'text', text: '[tool calls omitted]' }])
  })

  test('several dangling toolUse blocks are all removed', () => {
    const out = validateAnthropicTurns([user('q'), assistant([toolUse('a'), text('x'), toolUse('b')]), user([text('hi')])])
    assert.deepEqual(out[1].content, [text('x')])
  })

  test('mixed: the answered toolUse stays, the dangling one goes', () => {
    const out = validateAnthropicTurns([user('q'), assistant([toolUse('a'), toolUse('b')]), user([toolResultBlock('b'), text('hi')])])
    assert.deepEqual(out[1].content, [toolUse('b')])
  })

  test('nothing is stripped when the next message is not a user message', () => {
    const input = [user('q'), assistant([toolUse('a')]), toolResult('a')]
    assert.equal(validateAnthropicTurns(input), input)
    const last = [user('q'), assistant([toolUse('a')])]
    assert.equal(validateAnthropicTurns(last), last)
  })

  test('pi-ai toolCall blocks are never stripped', () => {
    const input = [user('q'), assistant([toolCall('c1')]), user([text('hi')])]
    assert.equal(validateAnthropicTurns(input), input)
  })

  test('validation is idempotent', () => {
    const input = [user('q'), assistant([toolUse('a'), text('x')]), user([text('1')]), user([text('2')]), assistant([toolUse('z')]), user('end')]
    const once = validateAnthropicTurns(input)
    const twice = validateAnthropicTurns(once)
    assert.deepEqual(twice, once)
    assert.equal(twice, once)
  })

  test('non-array assistant content before a user turn does not crash', () => {
    const input = [user('q'), assistant('plain text'), user([text('hi')]), assistant(null), user([text('again')])]
    const out = validateAnthropicTurns(input)
    assert.deepEqual(roles(out), ['user', 'assistant', 'user', 'assistant', 'user'])
    assert.ok(Array.isArray(out[1].content))
    assert.equal(out[2], input[2])
  })
})

describe('mergeConsecutiveUserTurns', () => {
  test('the newer turn\'s fields win; contents are concatenated', () => {
    const prev = { role: 'user', content: [text('before')], timestamp: 1000, provenance: { kind: 'external_user' } }
    const cur = { role: 'user', content: [text('after')], timestamp: 2000, provenance: { kind: 'inter_session' } }
    const out = runFrozen((p) => mergeConsecutiveUserTurns(p[0], p[1]), [prev, cur])
    assert.deepEqual(out, { role: 'user', content: [text('before'), text('after')], timestamp: 2000, provenance: { kind: 'inter_session' } })
    assert.notEqual(out, cur)
    assert.equal(out.provenance, cur.provenance)
  })

  test('a missing timestamp is backfilled from the earlier turn', () => {
    const out = mergeConsecutiveUserTurns({ role: 'user', content: [text('a')], timestamp: 1000 }, { role: 'user', content: [text('b')] })
    assert.equal(out.timestamp, 1000)
    assert.deepEqual(out.content, [text('a'), text('b')])
  })

  test('string contents become text blocks instead of being lost', () => {
    const out = mergeConsecutiveUserTurns({ role: 'user', content: 'hello', timestamp: 1 }, { role: 'user', content: 'world', timestamp: 2 })
    assert.deepEqual(out.content, [text('hello'), text('world')])
  })
})

describe('sanitizeGoogleTurnOrdering', () => {
  test('a history starting with an assistant gets a "(session bootstrap)" user turn first', () => {
    const input = [assistant([text('hello')], { timestamp: 1700000000123 }), user('hi')]
    const out = runFrozen(sanitizeGoogleTurnOrdering, input)
    assert.equal(out.length, 3)
    assert.deepEqual(out[0], { role: 'user', content: '(session bootstrap)', timestamp: 1700000000123 })
    assert.equal(out[1], input[0])
    assert.equal(out[2], input[1])
  })

  test('the bootstrap is deterministic: the same input gives the same output', () => {
    const input = [assistant([text('hello')])]
    assert.deepEqual(sanitizeGoogleTurnOrdering(input), sanitizeGoogleTurnOrdering(input))
  })

  test('a history starting with a user, an existing bootstrap, a toolResult or nothing is unchanged', () => {
    for (const input of [[user('hi'), assistant([text('a')])], [user('(session bootstrap)'), assistant([text('a')])], [toolResult('x'), assistant([text('a')])], []]) {
      assert.equal(sanitizeGoogleTurnOrdering(input), input)
    }
  })
})

describe('applyGoogleTurnOrderingFix', () => {
  test('prepends the bootstrap and records the marker once per session', () => {
    const sm = fakeSessionManager()
    const warnings = []
    const messages = [assistant([text('hello')]), user('hi')]
    const first = applyGoogleTurnOrderingFix({ messages, modelApi: 'google-generative-ai', sessionManager: sm, sessionId: 's1', warn: (w) => warnings.push(w) })
    assert.equal(first.didPrepend, true)
    assert.deepEqual(roles(first.messages), ['user', 'assistant', 'user'])
    assert.equal(first.messages[0].content, '(session bootstrap)')
    assert.equal(first.messages[1], messages[0])
    assert.equal(sm.appended.length, 1)
    assert.equal(sm.appended[0].customType, 'google-turn-ordering-bootstrap')
    assert.equal(typeof sm.appended[0].data.timestamp, 'number')

    const second = applyGoogleTurnOrderingFix({ messages, modelApi: 'google-generative-ai', sessionManager: sm, sessionId: 's1', warn: (w) => warnings.push(w) })
    assert.equal(second.didPrepend, true)
    assert.equal(sm.appended.length, 1, 'the marker is written once')
    assert.equal(warnings.length, 1, 'warns once over two calls')
    assert.match(warnings[0], /sessionId=s1/)
  })

  test('google-gemini-cli is a Google API too', () => {
    const sm = fakeSessionManager()
    const r = applyGoogleTurnOrderingFix({ messages: [assistant([text('x')])], modelApi: 'google-gemini-cli', sessionManager: sm })
    assert.equal(r.didPrepend, true)
    assert.equal(sm.appended.length, 1)
  })

  test('non-Google APIs are skipped: same array, no marker', () => {
    for (const modelApi of ['anthropic-messages', 'openai-completions', 'google-vertex', undefined]) {
      const sm = fakeSessionManager()
      const messages = [assistant([text('hello')])]
      const r = applyGoogleTurnOrderingFix({ messages, modelApi, sessionManager: sm })
      assert.equal(r.messages, messages, String(modelApi))
      assert.equal(r.didPrepend, false)
      assert.deepEqual(sm.appended, [])
    }
  })

  test('a history that starts with a user turn is left alone', () => {
    const sm = fakeSessionManager()
    const messages = [user('hi'), assistant([text('a')])]
    const r = applyGoogleTurnOrderingFix({ messages, modelApi: 'google-generative-ai', sessionManager: sm })
    assert.equal(r.messages, messages)
    assert.equal(r.didPrepend, false)
    assert.deepEqual(sm.appended, [])
  })

  test('works without a session manager, and with one whose appendCustomEntry throws', () => {
    const messages = [assistant([text('hello')])]
    assert.equal(applyGoogleTurnOrderingFix({ messages, modelApi: 'google-generative-ai' }).didPrepend, true)
    const broken = { getEntries: () => [], appendCustomEntry: () => { throw new Error('disk full') } }
    assert.equal(applyGoogleTurnOrderingFix({ messages, modelApi: 'google-generative-ai', sessionManager: broken }).didPrepend, true)
  })

  test('an existing marker in the session suppresses a new one', () => {
    const sm = fakeSessionManager([{ type: 'custom', customType: 'google-turn-ordering-bootstrap', data: { timestamp: 1 } }])
    const r = applyGoogleTurnOrderingFix({ messages: [assistant([text('x')])], modelApi: 'google-generative-ai', sessionManager: sm })
    assert.equal(r.didPrepend, true)
    assert.deepEqual(sm.appended, [])
  })
})

describe('limitHistoryTurns', () => {
  const history = () => [
    user('u1', { timestamp: 1 }),
    assistant([text('a1')]),
    user('u2', { timestamp: 2 }),
    assistant([text('a2')]),
    user('u3', { timestamp: 3 }),
    assistant([text('a3')]),
  ]

  test('a missing, zero or negative limit returns the same array', () => {
    const input = history()
    for (const limit of [undefined, 0, -1, NaN]) assert.equal(limitHistoryTurns(input, limit), input, String(limit))
  })

  test('an empty array is returned as it is', () => {
    const empty = []
    assert.equal(limitHistoryTurns(empty, 3), empty)
  })

  test('fewer user turns than the limit: the same array', () => {
    const input = history()
    assert.equal(limitHistoryTurns(input, 3), input)
    assert.equal(limitHistoryTurns(input, 10), input)
  })

  test('keeps the last N user turns and what follows them', () => {
    const input = history()
    const out = runFrozen((m) => limitHistoryTurns(m, 2), input)
    assert.deepEqual(out, input.slice(2))
    out.forEach((m, i) => assert.equal(m, input[i + 2]))
  })

  test('a limit of 1 keeps only the last user turn', () => {
    const input = history()
    assert.deepEqual(limitHistoryTurns(input, 1), input.slice(4))
  })

  test('several assistant and tool messages per user turn stay with their turn', () => {
    const input = [user('u1'), assistant([toolCall('c1')]), toolResult('c1'), assistant([text('x')]), user('u2'), assistant([toolCall('c2')]), toolResult('c2'), assistant([text('y')])]
    assert.deepEqual(limitHistoryTurns(input, 1), input.slice(4))
  })

  test('message contents are not modified', () => {
    const input = history()
    const out = limitHistoryTurns(input, 1)
    assert.equal(out[0].content, input[4].content)
    assert.deepEqual(input, history())
  })
})
