// Tool-use / tool-result pairing repair (§4.2): repairToolUseResultPairing, sanitizeToolUseResultPairing.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, SYNTHETIC_TEXT, user, assistant, toolCall, toolResult, runFrozen, roles } from './fixtures/helpers.mjs'

const { repairToolUseResultPairing, sanitizeToolUseResultPairing } = th

const calling = (ids, extra) => assistant(ids.map((id) => toolCall(id, 'read_' + id)), { stopReason: 'toolUse', timestamp: 5000, ...extra })

describe('repairToolUseResultPairing: new string values cross the boundary intact', () => {
  test('ids with the plan separator and non-ASCII come back exactly', () => {
    const ids = ['a\x1fb', 'ünï_\u{1F600}', 'plain']
    const { messages, added } = repairToolUseResultPairing([calling(ids), user('next')])
    assert.deepEqual(added.map((m) => m.toolCallId), ids)
    assert.deepEqual(added.map((m) => m.toolName), ids.map((id) => 'read_' + id))
    assert.deepEqual(roles(messages), ['assistant', 'toolResult', 'toolResult', 'toolResult', 'user'])
  })
})

describe('repairToolUseResultPairing: return shape', () => {
  test('returns {messages, added, droppedDuplicateCount, droppedOrphanCount, moved}', () => {
    const input = [user('hi'), calling(['a']), toolResult('a')]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(Object.keys(r).sort(), ['added', 'droppedDuplicateCount', 'droppedOrphanCount', 'messages', 'moved'])
    assert.equal(r.messages, input)
    assert.deepEqual(r.added, [])
    assert.equal(r.droppedDuplicateCount, 0)
    assert.equal(r.droppedOrphanCount, 0)
    assert.equal(r.moved, false)
  })

  test('sanitizeToolUseResultPairing returns just the messages, the same array when paired', () => {
    const input = [user('hi'), calling(['a', 'b']), toolResult('a'), toolResult('b'), user('next')]
    assert.equal(runFrozen(sanitizeToolUseResultPairing, input), input)
    const broken = [calling(['a']), user('x')]
    const out = sanitizeToolUseResultPairing(broken)
    assert.ok(Array.isArray(out))
    assert.deepEqual(roles(out), ['assistant', 'toolResult', 'user'])
  })

  test('report: true adds a change per repair, naming the message', () => {
    const input = [calling(['a']), user('u'), toolResult('zz')]
    const r = repairToolUseResultPairing(input, { report: true })
    assert.deepEqual(r.changes.map((c) => c.path).sort(), ['messages[0]', 'messages[2]'])
    for (const c of r.changes) assert.deepEqual(Object.keys(c).sort(), ['detail', 'path', 'rule'])
    assert.equal('changes' in repairToolUseResultPairing(input), false)
  })

  test('an empty transcript and a transcript without calls come back as the same array', () => {
    const empty = []
    assert.equal(repairToolUseResultPairing(empty).messages, empty)
    const chat = [user('a'), assistant([{ type: 'text', text: 'b' }]), user('c')]
    assert.equal(repairToolUseResultPairing(chat).messages, chat)
  })
})

describe('repairToolUseResultPairing: moving and synthesising', () => {
  test('moves a result that follows a user turn up to its call, and inserts a missing one', () => {
    const input = [user('go'), calling(['a', 'b']), user('interleaved'), toolResult('a')]
    const r = runFrozen(repairToolUseResultPairing, input)
    assert.deepEqual(roles(r.messages), ['user', 'assistant', 'toolResult', 'toolResult', 'user'])
    assert.equal(r.messages[0], input[0])
    assert.equal(r.messages[1], input[1])
    assert.equal(r.messages[2], input[3])
    assert.equal(r.messages[3].toolCallId, 'b')
    assert.equal(r.messages[4], input[2])
    assert.equal(r.moved, true)
    assert.equal(r.added.length, 1)
    assert.equal(r.added[0], r.messages[3])
  })

  test('a synthetic result has the documented shape, text and the assistant timestamp', () => {
    const input = [calling(['a'], { timestamp: 1234567 }), user('next')]
    const { messages, added } = repairToolUseResultPairing(input)
    assert.deepEqual(messages[1], {
      role: 'toolResult',
      toolCallId: 'a',
      toolName: 'read_a',
      content: [{ type: 'text', text: SYNTHETIC_TEXT }],
      isError: true,
      timestamp: 1234567,
    })
    assert.deepEqual(added, [messages[1]])
    assert.equal(added[0], messages[1])
  })

  test('the output is deterministic: two runs give equal results', () => {
    const input = [calling(['a', 'b']), user('x'), calling(['c']), user('y')]
    assert.deepEqual(repairToolUseResultPairing(input), repairToolUseResultPairing(input))
  })

  test('syntheticToolResultText replaces the synthetic text', () => {
    const r = repairToolUseResultPairing([calling(['a'])], { syntheticToolResultText: 'no result recorded' })
    assert.deepEqual(r.messages[1].content, [{ type: 'text', text: 'no result recorded' }])
  })

  test('a call without a string name gets a synthetic result named "unknown"', () => {
    const a = assistant([{ type: 'toolCall', id: 'a', arguments: {} }], { stopReason: 'toolUse' })
    const r = repairToolUseResultPairing([a])
    assert.equal(r.messages[1].toolName, 'unknown')
  })

  test('synthesises for stopReason "toolUse" and "stop"; results come in call order', () => {
    for (const stopReason of ['toolUse', 'stop']) {
      const input = [calling(['a', 'b', 'c'], { stopReason }), toolResult('c'), toolResult('a')]
      const r = repairToolUseResultPairing(input)
      assert.deepEqual(r.messages.slice(1).map((m) => m.toolCallId), ['a', 'b', 'c'], stopReason)
      assert.equal(r.messages[1], input[2])
      assert.equal(r.messages[3], input[1])
      assert.equal(r.added.length, 1)
      assert.equal(r.added[0], r.messages[2])
    }
  })

  test('every call block type counts: toolUse and functionCall get results too', () => {
    const a = assistant([{ type: 'toolUse', id: 'u1', name: 'x', input: {} }, { type: 'functionCall', id: 'f1', name: 'y', arguments: {} }], { stopReason: 'toolUse' })
    const r = repairToolUseResultPairing([a])
    assert.deepEqual(r.messages.slice(1).map((m) => [m.toolCallId, m.toolName]), [['u1', 'x'], ['f1', 'y']])
  })

  test('a legacy toolUseId result pairs with its call', () => {
    const res = toolResult('ignored')
    delete res.toolCallId
    res.toolUseId = 'a'
    const input = [calling(['a']), user('between'), res]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(roles(r.messages), ['assistant', 'toolResult', 'user'])
    assert.equal(r.messages[1], res)
    assert.deepEqual(r.added, [])
  })

  test('the span of an assistant ends at the next assistant', () => {
    const input = [calling(['a']), user('u'), assistant([{ type: 'text', text: 'later' }]), toolResult('a')]
    const r = repairToolUseResultPairing(input)
    // The late result is outside the first span: a synthetic answers the call, the late one is an orphan.
    assert.deepEqual(roles(r.messages), ['assistant', 'toolResult', 'user', 'assistant'])
    assert.equal(r.messages[1].content[0].text, SYNTHETIC_TEXT)
    assert.equal(r.droppedOrphanCount, 1)
  })

  test('interleaved non-result messages keep their relative order after the results', () => {
    const u1 = user('one')
    const u2 = { role: 'custom', customType: 'note', content: 'x' }
    const u3 = user('three')
    const input = [calling(['a']), u1, u2, toolResult('a'), u3]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(r.messages, [input[0], input[3], u1, u2, u3])
    assert.equal(r.messages[2], u1)
    assert.equal(r.messages[3], u2)
  })
})

describe('repairToolUseResultPairing: result names', () => {
  test('a blank toolName is filled from the call', () => {
    const input = [calling(['a']), toolResult('a', 'ok', { toolName: '   ' })]
    const r = repairToolUseResultPairing(input)
    assert.equal(r.messages[1].toolName, 'read_a')
    assert.deepEqual({ ...r.messages[1], toolName: '   ' }, input[1])
  })

  test('a toolName with surrounding space is trimmed', () => {
    const r = repairToolUseResultPairing([calling(['a']), toolResult('a', 'ok', { toolName: '  Read  ' })])
    assert.equal(r.messages[1].toolName, 'Read')
  })

  test('a blank toolName whose call has no name becomes "unknown"; a missing toolName stays missing', () => {
    const nameless = assistant([{ type: 'toolCall', id: 'a', arguments: {} }, { type: 'toolCall', id: 'b', arguments: {} }], { stopReason: 'toolUse' })
    const missing = toolResult('b')
    delete missing.toolName
    const input = [nameless, toolResult('a', 'ok', { toolName: '' }), missing]
    const r = repairToolUseResultPairing(input)
    assert.equal(r.messages[1].toolName, 'unknown')
    assert.equal('toolName' in r.messages[2], false)
    assert.equal(r.messages[2], missing)
  })
})

describe('repairToolUseResultPairing: duplicates and orphans', () => {
  test('a second result for the same call within a span is dropped', () => {
    const input = [calling(['a']), toolResult('a', 'first'), toolResult('a', 'second')]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(r.messages, [input[0], input[1]])
    assert.equal(r.messages[1], input[1])
  })

  test('a result whose id was already answered earlier in the transcript is a dropped duplicate', () => {
    const input = [calling(['a']), toolResult('a', 'first'), user('again'), calling(['a']), toolResult('a', 'second')]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(r.messages, [input[0], input[1], input[2], input[3]])
    assert.ok(r.droppedDuplicateCount >= 1)
    // No result with the same id appears twice.
    const ids = r.messages.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId)
    assert.equal(new Set(ids).size, ids.length)
  })

  test('a result outside any span is an orphan and is dropped', () => {
    const input = [user('hi'), toolResult('ghost'), assistant([{ type: 'text', text: 'ok' }])]
    const r = runFrozen(repairToolUseResultPairing, input)
    assert.deepEqual(r.messages, [input[0], input[2]])
    assert.equal(r.droppedOrphanCount, 1)
    assert.equal(r.moved, true)
  })

  test('a result in a span that matches none of its calls is an orphan', () => {
    const input = [calling(['a']), toolResult('zzz'), toolResult('a')]
    const r = repairToolUseResultPairing(input)
    assert.deepEqual(r.messages, [input[0], input[2]])
    assert.equal(r.droppedOrphanCount, 1)
  })
})

describe('repairToolUseResultPairing: errored and aborted turns', () => {
  for (const stopReason of ['error', 'aborted']) {
    test(`no synthetic results after stopReason "${stopReason}"`, () => {
      const input = [user('go'), calling(['a', 'b'], { stopReason }), user('retry')]
      const r = repairToolUseResultPairing(input)
      assert.deepEqual(r.messages, input)
      assert.deepEqual(r.added, [])
    })

    test(`the result that follows a "${stopReason}" assistant stays alone, and is dropped when something else changes`, () => {
      // OpenClaw builds its output without it but returns its input when nothing else changed.
      const input = [user('go'), calling(['a'], { stopReason }), toolResult('a'), user('retry')]
      const r = repairToolUseResultPairing(input)
      assert.equal(r.messages.length, 4)
      assert.ok(r.messages.every((m, i) => m === input[i]))
      assert.equal(r.moved, false)
      const withOrphan = [toolResult('zzz'), ...input]
      const d = repairToolUseResultPairing(withOrphan)
      assert.deepEqual(d.messages, [input[0], input[1], input[3]])
      assert.equal(d.droppedOrphanCount, 1, 'the stray result only: OpenClaw does not count the dropped one')
      assert.deepEqual(d.added, [])
    })

    test(`preserveErroredAssistantResults keeps the matched results of a "${stopReason}" turn, without synthetics`, () => {
      const input = [user('go'), calling(['a', 'b'], { stopReason }), user('between'), toolResult('a')]
      const r = repairToolUseResultPairing(input, { preserveErroredAssistantResults: true })
      assert.deepEqual(r.messages, [input[0], input[1], input[3], input[2]])
      assert.deepEqual(r.added, [])
    })
  }
})
