// Malformed tool-call dropping (§4.3): repairToolCallInputs / sanitizeToolCallInputs.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, text, runFrozen } from './fixtures/helpers.mjs'

const { repairToolCallInputs, sanitizeToolCallInputs } = th
const REDACTED = '__OPENCLAW_REDACTED__'

/** The tool-call ids left in the output. */
const keptIds = (msgs) => msgs.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'toolCall').map((b) => b.id) : []))

describe('repairToolCallInputs: return shape', () => {
  test('returns {messages, droppedToolCalls, droppedAssistantMessages}; the same array when all calls are valid', () => {
    const input = [user('hi'), assistant([text('ok'), toolCall('c1', 'read', { path: 'x' })])]
    const r = runFrozen((m) => repairToolCallInputs(m), input)
    assert.deepEqual(Object.keys(r).sort(), ['droppedAssistantMessages', 'droppedToolCalls', 'messages'])
    assert.equal(r.messages, input)
    assert.equal(r.droppedToolCalls, 0)
    assert.equal(r.droppedAssistantMessages, 0)
  })

  test('report: true adds the changes, each naming the dropped block', () => {
    const r = repairToolCallInputs([user('q'), assistant([toolCall('a', 'bad name'), text('x')])], { report: true })
    assert.equal(r.droppedToolCalls, 1)
    assert.equal(r.changes.length, 1)
    assert.equal(r.changes[0].path, 'messages[1].content[0]')
    assert.equal(typeof r.changes[0].rule, 'string')
    assert.equal(typeof r.changes[0].detail, 'string')
  })

  test('sanitizeToolCallInputs returns only the messages', () => {
    const input = [assistant([text('t'), { type: 'toolCall', id: 'c1', name: 'read' }])]
    const out = sanitizeToolCallInputs(input)
    assert.ok(Array.isArray(out))
    assert.deepEqual(out[0].content, [input[0].content[0]])
    const fine = [assistant([toolCall('c1')])]
    assert.equal(sanitizeToolCallInputs(fine), fine)
  })
})

describe('repairToolCallInputs: which calls are dropped', () => {
  test('a call with neither input nor arguments is dropped; text and valid calls stay', () => {
    const t = text('thinking aloud')
    const good = toolCall('c2', 'exec', { cmd: 'ls' })
    const input = [user('go'), assistant([t, { type: 'toolCall', id: 'c1', name: 'read' }, good])]
    const r = runFrozen((m) => repairToolCallInputs(m), input)
    assert.equal(r.droppedToolCalls, 1)
    assert.equal(r.messages[0], input[0])
    assert.deepEqual(r.messages[1].content, [t, good])
    assert.equal(r.messages[1].content[0], t)
    assert.equal(r.messages[1].content[1], good)
    // The message is a shallow copy: every other field survives in order.
    assert.deepEqual(Object.keys(r.messages[1]), Object.keys(input[1]))
  })

  test('null or undefined input/arguments count as missing; {} and 0 count as present', () => {
    const input = [
      assistant([
        { type: 'toolCall', id: 'n1', name: 'read', arguments: null },
        { type: 'toolUse', id: 'n2', name: 'read', input: null, arguments: undefined },
        { type: 'toolCall', id: 'p1', name: 'read', arguments: {} },
        { type: 'toolUse', id: 'p2', name: 'read', input: 0 },
        { type: 'functionCall', id: 'p3', name: 'read', arguments: '' },
      ]),
    ]
    const r = repairToolCallInputs(input)
    assert.deepEqual(r.messages[0].content.map((b) => b.id), ['p1', 'p2', 'p3'])
    assert.equal(r.droppedToolCalls, 2)
  })

  test('a call without a non-blank string id is dropped', () => {
    const input = [assistant([toolCall(''), toolCall('   '), toolCall(42), { type: 'toolCall', name: 'read', arguments: {} }, toolCall('ok')])]
    const r = repairToolCallInputs(input)
    assert.deepEqual(r.messages[0].content.map((b) => b.id), ['ok'])
    assert.equal(r.droppedToolCalls, 4)
  })

  test('a call with a missing, blank, malformed or overlong name is dropped', () => {
    const bad = [undefined, null, 7, '', '   ', 'read file', 'read.file', 'functions/read', 'a'.repeat(65), 'ü']
    const content = bad.map((name, i) => ({ type: 'toolCall', id: `b${i}`, name, arguments: {} }))
    content.push(toolCall('g1', 'a'.repeat(64)), toolCall('g2', 'Read_File-2'))
    const r = repairToolCallInputs([assistant(content)])
    assert.deepEqual(r.messages[0].content.map((b) => b.id), ['g1', 'g2'])
    assert.equal(r.droppedToolCalls, bad.length)
  })

  test('a name is measured after trimming: 64 characters plus padding is kept', () => {
    const r = repairToolCallInputs([assistant([toolCall('c', '  ' + 'x'.repeat(64) + '  ')])])
    assert.equal(r.messages[0].content[0].name, 'x'.repeat(64))
  })

  test('calls outside the allowlist are dropped; the list is trimmed and case-insensitive', () => {
    const input = [assistant([toolCall('a', 'READ'), toolCall('b', 'write'), toolCall('c', ' Exec ')])]
    const r = repairToolCallInputs(input, { allowedToolNames: [' read ', 'EXEC', ''] })
    assert.deepEqual(r.messages[0].content.map((b) => [b.id, b.name]), [['a', 'READ'], ['c', 'Exec']])
    assert.equal(r.droppedToolCalls, 1)
  })

  test('the allowlist may be a Set (any iterable)', () => {
    const input = [assistant([toolCall('a', 'read'), toolCall('b', 'write')])]
    const r = repairToolCallInputs(input, { allowedToolNames: new Set(['write']) })
    assert.deepEqual(keptIds(r.messages), ['b'])
  })

  test('an empty allowlist (or one of blank names) counts as none', () => {
    const input = [assistant([toolCall('a', 'read'), toolCall('b', 'write')])]
    assert.equal(repairToolCallInputs(input, { allowedToolNames: [] }).messages, input)
    assert.equal(repairToolCallInputs(input, { allowedToolNames: ['  ', ''] }).messages, input)
  })

  test('an assistant emptied by the drop is removed and counted; one that was already empty stays', () => {
    const empty = assistant([])
    const input = [user('a'), assistant([{ type: 'toolCall', id: 'x', name: 'read' }]), empty, user('b')]
    const r = runFrozen((m) => repairToolCallInputs(m), input)
    assert.deepEqual(r.messages, [input[0], empty, input[3]])
    assert.equal(r.messages[1], empty)
    assert.equal(r.droppedAssistantMessages, 1)
    assert.equal(r.droppedToolCalls, 1)
  })

  test('non-assistant messages are untouched, tool-call-like blocks in user content included', () => {
    const u = { role: 'user', content: [{ type: 'toolCall', id: '', name: 'bad name' }], timestamp: 1 }
    const tr = { role: 'toolResult', toolCallId: 'x', content: [{ type: 'toolUse', id: 'x' }] }
    const input = [u, tr]
    assert.equal(repairToolCallInputs(input).messages, input)
  })

  test('assistant messages with string or null content are not examined', () => {
    const input = [assistant('plain text'), assistant(null), user('q')]
    assert.equal(repairToolCallInputs(input).messages, input)
  })

  test('assistant messages with object or number content are not examined', () => {
    const input = [assistant({ type: 'toolCall' }), assistant(5), user('q')]
    assert.equal(repairToolCallInputs(input).messages, input)
  })
})

describe('repairToolCallInputs: name trimming', () => {
  const cases = [
    ['leading', '  read', 'read', undefined],
    ['trailing', 'read\t', 'read', undefined],
    ['both', ' \n Read  ', 'Read', undefined],
    ['with an allowlist', '  Read ', 'Read', ['read']],
  ]
  for (const [label, raw, want, allowedToolNames] of cases) {
    test(`trims ${label} whitespace and keeps the original case`, () => {
      const input = [assistant([toolCall('c1', raw)])]
      const r = runFrozen((m) => repairToolCallInputs(m, allowedToolNames ? { allowedToolNames } : undefined), input)
      assert.equal(r.messages[0].content[0].name, want)
      assert.equal(r.droppedToolCalls, 0)
    })
  }

  test('trimming keeps every other property of the block, in order', () => {
    const block = { type: 'toolCall', id: 'c1', name: ' read ', arguments: { path: 'a' }, thoughtSignature: 'AQID', extra: { keep: true } }
    const r = repairToolCallInputs([assistant([block])])
    const out = r.messages[0].content[0]
    assert.deepEqual(Object.keys(out), Object.keys(block))
    assert.deepEqual(out, { ...block, name: 'read' })
    assert.equal(out.arguments, block.arguments)
    assert.equal(out.extra, block.extra)
  })
})

describe('repairToolCallInputs: sessions_spawn attachments', () => {
  test('attachment content in arguments is redacted; entries without content are kept as they are', () => {
    const noContent = { name: 'b.txt' }
    const block = {
      type: 'toolCall',
      id: 's1',
      name: 'sessions_spawn',
      arguments: { task: 'do it', attachments: [{ name: 'a.txt', content: 'SECRET', mimeType: 'text/plain' }, noContent, 'plain string'] },
    }
    const input = [assistant([block])]
    const r = runFrozen((m) => repairToolCallInputs(m), input)
    const args = r.messages[0].content[0].arguments
    assert.deepEqual(args, {
      task: 'do it',
      attachments: [{ name: 'a.txt', content: REDACTED, mimeType: 'text/plain' }, noContent, 'plain string'],
    })
    assert.equal(r.droppedToolCalls, 0)
  })

  test('the redacted content key moves last, as OpenClaw writes it ({...rest, content})', () => {
    const input = [assistant([toolCall('s1', 'sessions_spawn', { attachments: [{ name: 'a', content: 'x', encoding: 'utf8' }] })])]
    const att = repairToolCallInputs(input).messages[0].content[0].arguments.attachments[0]
    assert.deepEqual(Object.keys(att), ['name', 'encoding', 'content'])
  })

  test('attachment content in input is redacted, and the input shape is kept', () => {
    const block = { type: 'toolUse', id: 's1', name: 'sessions_spawn', input: { attachments: [{ name: 'a', content: 'SECRET' }] } }
    const out = repairToolCallInputs([assistant([block])]).messages[0].content[0]
    assert.deepEqual(out.input, { attachments: [{ name: 'a', content: REDACTED }] })
    assert.equal('arguments' in out, false)
  })

  test('both input and arguments are redacted when both are present', () => {
    const block = { type: 'toolCall', id: 's1', name: 'sessions_spawn', input: { attachments: [{ content: 'A' }] }, arguments: { attachments: [{ content: 'B' }] } }
    const out = repairToolCallInputs([assistant([block])]).messages[0].content[0]
    assert.deepEqual(out.input, { attachments: [{ content: REDACTED }] })
    assert.deepEqual(out.arguments, { attachments: [{ content: REDACTED }] })
  })

  test('a padded, upper-case SESSIONS_SPAWN is redacted and its name trimmed', () => {
    const input = [assistant([toolCall('s1', '  SESSIONS_SPAWN ', { attachments: [{ name: 'a', content: 'SECRET' }] })])]
    const out = repairToolCallInputs(input).messages[0].content[0]
    assert.equal(out.name, 'SESSIONS_SPAWN')
    assert.equal(out.arguments.attachments[0].content, REDACTED)
  })

  test('sessions_spawn without attachments is left as it is (same array)', () => {
    const input = [assistant([{ type: 'toolUse', id: 's1', name: 'sessions_spawn', input: { task: 'x' } }])]
    const r = repairToolCallInputs(input)
    assert.equal(r.messages, input)
  })

  test('other tools with attachments are not redacted', () => {
    const input = [assistant([toolCall('s1', 'upload', { attachments: [{ content: 'keep me' }] })])]
    assert.equal(repairToolCallInputs(input).messages, input)
  })
})
