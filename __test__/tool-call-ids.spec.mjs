// Tool-call id sanitising (§4.1): the scalar rule, its validity check, and the transcript walker.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, toolResult, runFrozen } from './fixtures/helpers.mjs'

const { sanitizeToolCallId, isValidCloudCodeAssistToolId, sanitizeToolCallIdsForCloudCodeAssist } = th

describe('sanitizeToolCallId', () => {
  test('strict (the default mode) removes every character outside [a-zA-Z0-9]', () => {
    assert.equal(sanitizeToolCallId('call_abc-123|fc_9:x.y', 'strict'), 'callabc123fc9xy')
    assert.equal(sanitizeToolCallId('functions.read:0'), 'functionsread0')
    assert.equal(sanitizeToolCallId('toolu_01ABCdef'), 'toolu01ABCdef')
  })

  test('strict keeps a valid id exactly and does not cap the scalar length', () => {
    const long = 'a'.repeat(100)
    assert.equal(sanitizeToolCallId('abc123XYZ', 'strict'), 'abc123XYZ')
    assert.equal(sanitizeToolCallId(long, 'strict'), long)
  })

  test('strict: an id with no alphanumerics becomes "sanitizedtoolid"', () => {
    assert.equal(sanitizeToolCallId('___|::', 'strict'), 'sanitizedtoolid')
    assert.equal(sanitizeToolCallId('é漢字', 'strict'), 'sanitizedtoolid')
  })

  test('empty or non-string ids give the mode default', () => {
    for (const id of ['', undefined, null, 42, {}, ['a']]) {
      assert.equal(sanitizeToolCallId(id, 'strict'), 'defaulttoolid', String(id))
      assert.equal(sanitizeToolCallId(id, 'strict9'), 'defaultid', String(id))
    }
    assert.equal(sanitizeToolCallId(''), 'defaulttoolid')
  })

  test('strict9 keeps the first nine alphanumerics', () => {
    assert.equal(sanitizeToolCallId('call_abc|item:123', 'strict9'), 'callabcit')
    assert.equal(sanitizeToolCallId('abcdefghi', 'strict9'), 'abcdefghi')
    assert.equal(sanitizeToolCallId('a-b-c-d-e-f-g-h-i-j-k', 'strict9'), 'abcdefghi')
  })

  test('strict9 hashes one to eight alphanumerics (first nine hex digits of SHA-256)', () => {
    assert.equal(sanitizeToolCallId('ab', 'strict9'), 'fb8e20fc2')
    assert.equal(sanitizeToolCallId('a_b', 'strict9'), 'fb8e20fc2')
    assert.equal(sanitizeToolCallId('call_abc', 'strict9'), '54fa44656')
  })

  test('strict9 with no alphanumerics hashes "sanitized"', () => {
    assert.equal(sanitizeToolCallId('___', 'strict9'), '44d8b78be')
  })

  test('any mode other than "strict9" means strict, as in OpenClaw', () => {
    assert.equal(sanitizeToolCallId('a_b-c', 'loose'), 'abc')
    assert.equal(sanitizeToolCallId('a_b-c', ''), 'abc')
    assert.equal(sanitizeToolCallId('a_b-c', 'STRICT9'), 'abc')
  })
})

describe('isValidCloudCodeAssistToolId', () => {
  test('strict accepts non-empty [a-zA-Z0-9]+ only', () => {
    assert.equal(isValidCloudCodeAssistToolId('abc123', 'strict'), true)
    assert.equal(isValidCloudCodeAssistToolId('a'.repeat(64)), true)
    assert.equal(isValidCloudCodeAssistToolId('call_1', 'strict'), false)
    assert.equal(isValidCloudCodeAssistToolId('call|fc', 'strict'), false)
    assert.equal(isValidCloudCodeAssistToolId('abc é', 'strict'), false)
    assert.equal(isValidCloudCodeAssistToolId('', 'strict'), false)
  })

  test('strict9 accepts exactly nine alphanumerics', () => {
    assert.equal(isValidCloudCodeAssistToolId('abcdefghi', 'strict9'), true)
    assert.equal(isValidCloudCodeAssistToolId('A1b2C3d4E', 'strict9'), true)
    assert.equal(isValidCloudCodeAssistToolId('abcdefgh', 'strict9'), false)
    assert.equal(isValidCloudCodeAssistToolId('abcdefghij', 'strict9'), false)
    assert.equal(isValidCloudCodeAssistToolId('abc_efghi', 'strict9'), false)
  })

  test('non-string ids are invalid, not an error', () => {
    for (const id of [undefined, null, 123456789, {}, []]) {
      assert.equal(isValidCloudCodeAssistToolId(id, 'strict'), false)
      assert.equal(isValidCloudCodeAssistToolId(id, 'strict9'), false)
    }
  })

  test('the output of sanitizeToolCallId is always valid for its mode', () => {
    for (const id of ['call_1|fc_2', 'ab', '', '___', 'x'.repeat(500), 'functions.read:0']) {
      assert.equal(isValidCloudCodeAssistToolId(sanitizeToolCallId(id, 'strict'), 'strict'), true, id)
      assert.equal(isValidCloudCodeAssistToolId(sanitizeToolCallId(id, 'strict9'), 'strict9'), true, id)
    }
  })

  test('any mode other than "strict9" means strict', () => {
    assert.equal(isValidCloudCodeAssistToolId('abc', 'STRICT'), true)
    assert.equal(isValidCloudCodeAssistToolId('abcdefghij', 'STRICT'), true)
    assert.equal(isValidCloudCodeAssistToolId('abcdefghij', 'strict9'), false)
  })
})

/** An assistant calling `ids` (one toolCall each), followed by one result per id. */
function turn(ids, extra) {
  return [assistant(ids.map((id) => toolCall(id)), { stopReason: 'toolUse', ...extra }), ...ids.map((id) => toolResult(id))]
}

describe('sanitizeToolCallIdsForCloudCodeAssist: strict', () => {
  test('valid, unique ids: the very same array comes back', () => {
    const input = [user('hi'), ...turn(['call1', 'toolu01abc'])]
    const out = runFrozen((m) => sanitizeToolCallIdsForCloudCodeAssist(m, 'strict'), input)
    assert.equal(out, input)
  })

  test('mode defaults to strict', () => {
    const out = sanitizeToolCallIdsForCloudCodeAssist(turn(['call|item:123']))
    assert.equal(out[0].content[0].id, 'callitem123')
    assert.equal(out[1].toolCallId, 'callitem123')
  })

  test('non-alphanumerics are removed from the call and its result', () => {
    const input = [user('hi'), ...turn(['call|item:123'])]
    const out = runFrozen((m) => sanitizeToolCallIdsForCloudCodeAssist(m, 'strict'), input)
    assert.notEqual(out, input)
    assert.equal(out[0], input[0])
    assert.equal(out[1].content[0].id, 'callitem123')
    assert.equal(out[2].toolCallId, 'callitem123')
    // Only the id changed: other fields and the arguments object survive.
    assert.deepEqual({ ...out[1].content[0], id: input[1].content[0].id }, input[1].content[0])
    assert.equal(out[1].content[0].arguments, input[1].content[0].arguments)
    assert.deepEqual({ ...out[2], toolCallId: 'call|item:123' }, input[2])
  })

  test('ids that collide after sanitising get a hash suffix', () => {
    const out = sanitizeToolCallIdsForCloudCodeAssist(turn(['call_a|b', 'call_a:b']), 'strict')
    assert.deepEqual(out[0].content.map((b) => b.id), ['callab', 'callab164e5cbf'])
    assert.equal(out[1].toolCallId, 'callab')
    assert.equal(out[2].toolCallId, 'callab164e5cbf')
  })

  test('a raw id repeated across turns gets a distinct id per occurrence, results follow in order', () => {
    const input = [...turn(['edit:22']), user('again'), ...turn(['edit:22'])]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out[0].content[0].id, 'edit22')
    assert.equal(out[1].toolCallId, 'edit22')
    assert.equal(out[3].content[0].id, 'edit222')
    assert.equal(out[4].toolCallId, 'edit222')
  })

  test('a raw id repeated inside one assistant: results are matched first in, first out', () => {
    const input = [assistant([toolCall('a_1'), toolCall('a_1')], { stopReason: 'toolUse' }), toolResult('a_1', 'first'), toolResult('a_1', 'second')]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    const [c1, c2] = out[0].content.map((b) => b.id)
    assert.notEqual(c1, c2)
    assert.equal(out[1].toolCallId, c1)
    assert.equal(out[2].toolCallId, c2)
  })

  test('a shared toolCallId / toolUseId is resolved once and both fields get the new id', () => {
    const input = [
      assistant([toolCall('call_1')], { stopReason: 'toolUse' }),
      { ...toolResult('call_1'), toolUseId: 'call_1' },
    ]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out[0].content[0].id, 'call1')
    assert.equal(out[1].toolCallId, 'call1')
    assert.equal(out[1].toolUseId, 'call1')
  })

  test('a legacy toolUseId alone is renamed like toolCallId', () => {
    const r = toolResult('x')
    delete r.toolCallId
    r.toolUseId = 'call_1'
    const out = sanitizeToolCallIdsForCloudCodeAssist([assistant([toolCall('call_1')]), r], 'strict')
    assert.equal(out[1].toolUseId, 'call1')
    assert.equal('toolCallId' in out[1], false)
  })

  test('toolUse and functionCall blocks are renamed too', () => {
    const input = [
      assistant([{ type: 'toolUse', id: 'tu_1', name: 'read', input: {} }, { type: 'functionCall', id: 'fc-2', name: 'exec', arguments: {} }]),
      toolResult('tu_1'),
      toolResult('fc-2'),
    ]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.deepEqual(out[0].content.map((b) => [b.type, b.id]), [['toolUse', 'tu1'], ['functionCall', 'fc2']])
    assert.deepEqual([out[1].toolCallId, out[2].toolCallId], ['tu1', 'fc2'])
  })

  test('an orphan result is renamed even when its id is already valid', () => {
    const input = [user('hi'), toolResult('call1')]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out[1].toolCallId, 'call1toolresult1')
  })

  test('a result that comes before its call is an orphan; the call keeps its id', () => {
    const input = [toolResult('call1'), assistant([toolCall('call1')])]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out[0].toolCallId, 'call1toolresult1')
    assert.equal(out[1], input[1])
  })

  test('ids are capped at 40 characters, and capped collisions stay distinct', () => {
    const a = 'toolu_' + 'A'.repeat(59)
    const b = 'toolu_' + 'A'.repeat(58) + 'B'
    assert.equal(a.length, 65)
    const out = sanitizeToolCallIdsForCloudCodeAssist(turn([a, b]), 'strict')
    const [ia, ib] = out[0].content.map((x) => x.id)
    assert.equal(ia, 'toolu' + 'A'.repeat(35))
    assert.equal(ib, 'toolu' + 'A'.repeat(27) + '69314b13')
    assert.equal(ia.length, 40)
    assert.equal(ib.length, 40)
    assert.equal(out[1].toolCallId, ia)
    assert.equal(out[2].toolCallId, ib)
  })

  test('other roles, and tool-call-like blocks in user content, are untouched', () => {
    const input = [
      { role: 'user', content: [{ type: 'toolCall', id: 'call_x', name: 'read', arguments: {} }], timestamp: 1 },
      { role: 'compactionSummary', summary: 'x', toolCallId: 'call_y', timestamp: '2026-01-01T00:00:00Z' },
      ...turn(['call_z']),
    ]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out[0], input[0])
    assert.equal(out[1], input[1])
    assert.equal(out[2].content[0].id, 'callz')
  })

  test('calls without a non-empty string id are left alone', () => {
    const input = [assistant([toolCall(''), { type: 'toolCall', name: 'read', arguments: {} }, toolCall(7)])]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict')
    assert.equal(out, input)
  })
})

describe('sanitizeToolCallIdsForCloudCodeAssist: strict9', () => {
  test('valid, unique nine-character ids: the same array comes back', () => {
    const input = turn(['abcdefghi', 'ABCDEFGH1'])
    assert.equal(sanitizeToolCallIdsForCloudCodeAssist(input, 'strict9'), input)
  })

  test('ids are made nine alphanumerics; collisions are hashed', () => {
    const out = sanitizeToolCallIdsForCloudCodeAssist(turn(['call_abc|item:123', 'call_abc|item:456', 'ab']), 'strict9')
    assert.deepEqual(out[0].content.map((b) => b.id), ['callabcit', '15b81aaaa', 'fb8e20fc2'])
    assert.deepEqual(out.slice(1).map((m) => m.toolCallId), ['callabcit', '15b81aaaa', 'fb8e20fc2'])
  })

  test('a repeated raw id gets distinct nine-character ids per occurrence', () => {
    const out = sanitizeToolCallIdsForCloudCodeAssist([...turn(['call_abc']), user('x'), ...turn(['call_abc'])], 'strict9')
    assert.equal(out[0].content[0].id, '54fa44656')
    assert.equal(out[3].content[0].id, '3acf72457')
    assert.equal(out[1].toolCallId, '54fa44656')
    assert.equal(out[4].toolCallId, '3acf72457')
  })

  test('a shared toolUseId is resolved once in strict9 mode', () => {
    const input = [assistant([toolCall('call_abc|item:123')]), { ...toolResult('call_abc|item:123'), toolUseId: 'call_abc|item:123' }]
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict9')
    assert.equal(out[1].toolCallId, 'callabcit')
    assert.equal(out[1].toolUseId, 'callabcit')
  })

  test('every id in a large transcript is valid and unique per call', () => {
    const input = []
    for (let i = 0; i < 300; i++) input.push(...turn([`call_${i % 7}|fc_${i % 5}`]))
    const out = sanitizeToolCallIdsForCloudCodeAssist(input, 'strict9')
    const seen = new Set()
    for (let i = 0; i < out.length; i += 2) {
      const id = out[i].content[0].id
      assert.match(id, /^[a-zA-Z0-9]{9}$/)
      assert.ok(!seen.has(id), `duplicate ${id}`)
      seen.add(id)
      assert.equal(out[i + 1].toolCallId, id)
    }
  })
})
