// Thinking blocks, thought signatures, OpenAI reasoning, tool-result details, inter-session
// provenance and usage snapshots (§4.5, §4.6, §4.9, §4.10, §3.1 step 8).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, toolResult, text, thinking, runFrozen, roles } from './fixtures/helpers.mjs'

// OpenClaw 2026.3.23-2's rules (openclaw96-history.spec.mjs checks 2026.9.6's): pinned, whatever
// the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const {
  dropThinkingBlocks,
  stripThoughtSignatures,
  downgradeOpenAIReasoningBlocks,
  downgradeOpenAIFunctionCallReasoningPairs,
  stripToolResultDetails,
  annotateInterSessionUserMessages,
  ensureAssistantUsageSnapshots,
} = th

const B64 = { allowBase64Only: true, includeCamelCase: true }
const ZERO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

describe('dropThinkingBlocks', () => {
  test('no thinking blocks: the same array', () => {
    const input = [user('q'), assistant([text('a'), toolCall('c1')])]
    assert.equal(runFrozen(dropThinkingBlocks, input), input)
  })

  test('thinking blocks are removed; text, tool calls and redacted_thinking stay', () => {
    const redacted = { type: 'redacted_thinking', data: 'opaque' }
    const t = text('answer')
    const c = toolCall('c1')
    const a = assistant([thinking('hmm', 'sig'), t, redacted, thinking('more'), c])
    const input = [user('q'), a]
    const out = runFrozen(dropThinkingBlocks, input)
    assert.equal(out[0], input[0])
    assert.deepEqual(out[1].content, [t, redacted, c])
    assert.equal(out[1].content[0], t)
    assert.equal(out[1].content[2], c)
    assert.deepEqual({ ...out[1], content: a.content }, a)
  })

  test('a thinking-only turn is kept with one empty text block', () => {
    const out = dropThinkingBlocks([assistant([thinking('only thoughts', 'sig')])])
    assert.deepEqual(out[0].content, [{ type: 'text', text: '' }])
  })

  test('thinking blocks outside assistant messages are left alone', () => {
    const input = [{ role: 'user', content: [thinking('user-side')], timestamp: 1 }]
    assert.equal(dropThinkingBlocks(input), input)
  })
})

describe('stripThoughtSignatures: default options', () => {
  test('removes a snake_case thought_signature that starts with "msg_"', () => {
    const b = text('hi', { thought_signature: 'msg_abc123', extra: 1 })
    const content = [b]
    const out = runFrozen((c) => stripThoughtSignatures(c), content)
    assert.deepEqual(out, [{ type: 'text', text: 'hi', extra: 1 }])
    assert.deepEqual(Object.keys(out[0]), ['type', 'text', 'extra'])
  })

  test('other snake_case values and every camelCase thoughtSignature are kept', () => {
    const content = [text('a', { thought_signature: 'AQID' }), toolCall('c1', 'read', {}, { thoughtSignature: 'msg_x' }), text('b')]
    const out = stripThoughtSignatures(content)
    assert.deepEqual(out, content)
    out.forEach((b, i) => assert.equal(b, content[i]))
  })

  test('non-array content is returned as it is', () => {
    assert.equal(stripThoughtSignatures('plain'), 'plain')
    assert.equal(stripThoughtSignatures(null), null)
    const obj = { type: 'text' }
    assert.equal(stripThoughtSignatures(obj), obj)
  })
})

describe('stripThoughtSignatures: base64-only (Gemini)', () => {
  const KEPT = ['AQID', 'AQI', 'AQIDBA', 'AQIDBA==', 'Q2xhdWRl', ' AQ ID ']
  const STRIPPED = ['msg_123', '', 42, 'not base64!', 'ab-_cd', 'AQ==AQ==', null, { a: 1 }]

  for (const sig of KEPT) {
    test(`keeps the valid base64 signature ${JSON.stringify(sig)} under both keys`, () => {
      const content = [text('x', { thought_signature: sig }), toolCall('c', 'read', {}, { thoughtSignature: sig })]
      const out = stripThoughtSignatures(content, B64)
      assert.equal(out[0].thought_signature, sig)
      assert.equal(out[1].thoughtSignature, sig)
    })
  }

  for (const sig of STRIPPED) {
    test(`strips ${JSON.stringify(sig)} under both keys`, () => {
      const content = [text('x', { thought_signature: sig }), toolCall('c', 'read', { p: 1 }, { thoughtSignature: sig })]
      const out = runFrozen((c) => stripThoughtSignatures(c, B64), content)
      assert.deepEqual(out, [text('x'), toolCall('c', 'read', { p: 1 })])
      assert.equal(out[1].arguments, content[1].arguments)
    })
  }

  test('without includeCamelCase only thought_signature is checked', () => {
    const content = [toolCall('c', 'read', {}, { thoughtSignature: 'not base64!', thought_signature: 'not base64!' })]
    const out = stripThoughtSignatures(content, { allowBase64Only: true })
    assert.equal(out[0].thoughtSignature, 'not base64!')
    assert.equal('thought_signature' in out[0], false)
  })

  test('blocks without a signature are the same objects', () => {
    const plain = text('no sig')
    const content = [plain, text('x', { thoughtSignature: 'bad!' })]
    const out = stripThoughtSignatures(content, B64)
    assert.equal(out[0], plain)
    assert.deepEqual(out[1], text('x'))
  })
})

describe('downgradeOpenAIReasoningBlocks', () => {
  const rs = (id = 'rs_123') => JSON.stringify({ id, type: 'reasoning' })

  test('always returns a new array, even when nothing changed', () => {
    const input = [user('q'), assistant([text('a')])]
    const out = runFrozen(downgradeOpenAIReasoningBlocks, input)
    assert.notEqual(out, input)
    assert.deepEqual(out, input)
    out.forEach((m, i) => assert.equal(m, input[i]))
  })

  test('drops a reasoning block with nothing after it; a reasoning-only turn is removed', () => {
    const input = [user('q'), assistant([thinking('r', rs())]), user('next')]
    const out = downgradeOpenAIReasoningBlocks(input)
    assert.deepEqual(out, [input[0], input[2]])
  })

  test('a trailing reasoning block is dropped but the rest of the turn stays', () => {
    const t = text('answer')
    const out = downgradeOpenAIReasoningBlocks([assistant([t, thinking('r', rs())])])
    assert.deepEqual(out[0].content, [t])
  })

  test('a reasoning block followed by text or a tool call is kept', () => {
    const input = [assistant([thinking('r', rs()), text('answer')]), assistant([thinking('r', rs('rs_2')), toolCall('c')])]
    const out = downgradeOpenAIReasoningBlocks(input)
    assert.deepEqual(out, input)
    assert.equal(out[0], input[0])
  })

  test('object signatures and "reasoning.*" types count as OpenAI reasoning', () => {
    const input = [
      assistant([text('a'), thinking('r', { id: 'rs_obj', type: 'reasoning' })]),
      assistant([text('b'), thinking('r', JSON.stringify({ id: 'rs_x', type: 'reasoning.encrypted' }))]),
      assistant([text('c'), thinking('r', '  ' + rs('rs_pad') + '  ')]),
    ]
    const out = downgradeOpenAIReasoningBlocks(input)
    assert.deepEqual(out.map((m) => m.content.length), [1, 1, 1])
  })

  test('other thinking blocks are kept: a reasoning-only turn with a non-JSON signature survives', () => {
    const input = [
      assistant([thinking('r', 'sig')]),
      assistant([thinking('r', JSON.stringify({ id: 'msg_1', type: 'reasoning' }))]),
      assistant([thinking('r', JSON.stringify({ id: 'rs_1', type: 'summary' }))]),
      assistant([thinking('r')]),
    ]
    const out = downgradeOpenAIReasoningBlocks(input)
    assert.deepEqual(out, input)
    out.forEach((m, i) => assert.equal(m, input[i]))
  })

  test('a non-object block after the reasoning block counts as "something else"', () => {
    const input = [assistant([thinking('r', rs()), 'stray string'])]
    assert.deepEqual(downgradeOpenAIReasoningBlocks(input), input)
  })
})

describe('downgradeOpenAIFunctionCallReasoningPairs', () => {
  const rs = JSON.stringify({ id: 'rs_1', type: 'reasoning' })

  test('strips the "|fc_…" half of a call id without reasoning, and renames the following results', () => {
    const legacy = toolResult('x')
    delete legacy.toolCallId
    legacy.toolUseId = 'call_2|fc_2'
    const input = [user('q'), assistant([toolCall('call_1|fc_1'), toolCall('call_2|fc_2')]), toolResult('call_1|fc_1'), legacy]
    const out = runFrozen(downgradeOpenAIFunctionCallReasoningPairs, input)
    assert.deepEqual(out[1].content.map((b) => b.id), ['call_1', 'call_2'])
    assert.equal(out[2].toolCallId, 'call_1')
    assert.equal(out[3].toolUseId, 'call_2')
    assert.equal(out[0], input[0])
  })

  test('a call after an OpenAI reasoning block keeps its paired id', () => {
    const input = [assistant([thinking('r', rs), toolCall('call_1|fc_1')]), toolResult('call_1|fc_1')]
    assert.equal(downgradeOpenAIFunctionCallReasoningPairs(input), input)
  })

  test('the mapping applies only to the tool results immediately after the assistant', () => {
    const input = [assistant([toolCall('call_1|fc_1')]), user('interrupt'), toolResult('call_1|fc_1')]
    const out = downgradeOpenAIFunctionCallReasoningPairs(input)
    assert.equal(out[0].content[0].id, 'call_1')
    assert.equal(out[2], input[2])
  })

  test('ids that are not call|fc_ pairs are left alone (same array)', () => {
    const input = [assistant([toolCall('|fc_1'), toolCall('call_1|'), toolCall('call_1|item_2'), toolCall('plain')])]
    assert.equal(downgradeOpenAIFunctionCallReasoningPairs(input), input)
  })
})

describe('stripToolResultDetails', () => {
  test('removes details from toolResult messages only, keeping the other fields in order', () => {
    const tr = { role: 'toolResult', toolCallId: 'c', details: { diff: 'long', injected: 'IGNORE PREVIOUS' }, toolName: 'read', content: [text('ok')], isError: false }
    const u = { role: 'user', content: 'q', details: { keep: true } }
    const input = [u, tr]
    const out = runFrozen(stripToolResultDetails, input)
    assert.equal(out[0], u)
    assert.deepEqual(out[1], { role: 'toolResult', toolCallId: 'c', toolName: 'read', content: [text('ok')], isError: false })
    assert.deepEqual(Object.keys(out[1]), ['role', 'toolCallId', 'toolName', 'content', 'isError'])
    assert.equal(out[1].content, tr.content)
  })

  test('a details key holding undefined is removed too', () => {
    const out = stripToolResultDetails([{ ...toolResult('c'), details: undefined }])
    assert.equal('details' in out[0], false)
  })

  test('nothing to strip: the same array', () => {
    const input = [user('q'), toolResult('c')]
    assert.equal(stripToolResultDetails(input), input)
  })
})

describe('annotateInterSessionUserMessages', () => {
  const prov = { kind: 'inter_session', sourceSessionKey: 'agent:main:req', sourceTool: 'sessions_send', originSessionId: 'secret-id' }
  const PREFIX = '[Inter-session message] sourceSession=agent:main:req sourceTool=sessions_send'

  test('string content gets the marker line; role and provenance are unchanged', () => {
    const m = { role: 'user', content: 'forwarded instruction', timestamp: 1, provenance: prov }
    const out = runFrozen(annotateInterSessionUserMessages, [m])
    assert.equal(out[0].content, `${PREFIX}\nforwarded instruction`)
    assert.equal(out[0].role, 'user')
    assert.equal(out[0].provenance, prov)
    assert.deepEqual(Object.keys(out[0]), Object.keys(m))
    assert.ok(!out[0].content.includes('secret-id'), 'originSessionId is never printed')
  })

  test('array content: the first text block is prefixed, other blocks are the same objects', () => {
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' }
    const second = text('second')
    const m = { role: 'user', content: [image, text('first'), second], provenance: prov }
    const out = annotateInterSessionUserMessages([m])
    assert.deepEqual(out[0].content, [image, text(`${PREFIX}\nfirst`), second])
    assert.equal(out[0].content[0], image)
    assert.equal(out[0].content[2], second)
  })

  test('array content without a text block gets the marker inserted first', () => {
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' }
    const out = annotateInterSessionUserMessages([{ role: 'user', content: [image], provenance: prov }])
    assert.deepEqual(out[0].content, [{ type: 'text', text: PREFIX }, image])
  })

  test('without details the marker is bare; blank details are skipped', () => {
    const out = annotateInterSessionUserMessages([
      { role: 'user', content: 'a', provenance: { kind: 'inter_session' } },
      { role: 'user', content: 'b', provenance: { kind: 'inter_session', sourceSessionKey: '  ', sourceChannel: 'telegram' } },
    ])
    assert.equal(out[0].content, '[Inter-session message]\na')
    assert.equal(out[1].content, '[Inter-session message] sourceChannel=telegram\nb')
  })

  test('annotation is idempotent', () => {
    const once = annotateInterSessionUserMessages([{ role: 'user', content: 'x', provenance: prov }, { role: 'user', content: [text('y')], provenance: prov }])
    const twice = annotateInterSessionUserMessages(once)
    assert.equal(twice, once)
  })

  test('other provenance kinds, other roles and plain users are untouched (same array)', () => {
    const input = [
      { role: 'user', content: 'a', provenance: { kind: 'external_user' } },
      { role: 'user', content: 'b', provenance: { kind: 'internal_system' } },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: [text('d')], provenance: { kind: 'inter_session' } },
    ]
    assert.equal(annotateInterSessionUserMessages(input), input)
  })
})

describe('ensureAssistantUsageSnapshots', () => {
  test('canonical usage is left alone (same array)', () => {
    const input = [assistant([text('a')], { usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10 } })]
    assert.equal(runFrozen(ensureAssistantUsageSnapshots, input), input)
  })

  test('missing or invalid usage becomes the zero snapshot with cost', () => {
    const a = assistant([text('a')])
    const out = ensureAssistantUsageSnapshots([a, assistant([text('b')], { usage: 'lots' })])
    assert.deepEqual(out[0].usage, ZERO_USAGE)
    assert.deepEqual(out[1].usage, ZERO_USAGE)
    assert.equal(out[0].content, a.content)
  })

  test('partial usage under provider aliases is normalised, total summed', () => {
    const out = ensureAssistantUsageSnapshots([assistant([], { usage: { output: 3, cache_read_input_tokens: 9 } })])
    assert.deepEqual(out[0].usage, { input: 0, output: 3, cacheRead: 9, cacheWrite: 0, totalTokens: 12 })
    const snake = ensureAssistantUsageSnapshots([assistant([], { usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 20 } })])
    assert.equal(snake[0].usage.input, 5)
    assert.equal(snake[0].usage.output, 7)
  })

  test('a numeric cost is kept with missing parts zeroed; a non-numeric cost is dropped', () => {
    const out = ensureAssistantUsageSnapshots([
      assistant([], { usage: { input: 1, output: 2, cost: { total: 0.5 } } }),
      assistant([], { usage: { input: 1, output: 2, cost: { note: 'free' } } }),
    ])
    assert.deepEqual(out[0].usage.cost, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 })
    assert.equal(out[1].usage.cost, undefined)
  })

  test('usage recorded before the latest compaction is zeroed; usage after it is kept', () => {
    const used = { input: 5, output: 6, cacheRead: 0, cacheWrite: 0, totalTokens: 11 }
    const input = [
      assistant([text('old')], { usage: used, timestamp: 100 }),
      { role: 'compactionSummary', summary: 's', tokensBefore: 9, timestamp: 200 },
      assistant([text('new')], { usage: used, timestamp: 300 }),
    ]
    const out = ensureAssistantUsageSnapshots(input)
    assert.deepEqual(out[0].usage, ZERO_USAGE)
    assert.equal(out[1], input[1])
    assert.equal(out[2], input[2])
  })

  test('non-assistant messages are never given usage', () => {
    const input = [user('q'), toolResult('c')]
    assert.equal(ensureAssistantUsageSnapshots(input), input)
    assert.deepEqual(roles(input), ['user', 'toolResult'])
  })
})
