import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { buildServerToolFollowup, stripServerToolCalls } = require('../index.js')

function deepFreeze(v) {
  if (v && typeof v === 'object') {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze(v[k])
  }
  return v
}

const call = (id, name, args = '{"query":"x"}') => ({ id, type: 'function', function: { name, arguments: args } })
const tool = (name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })

function chatOriginal() {
  return {
    model: 'glm-4.6',
    messages: [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'What happened today?' },
    ],
    tools: [tool('web_search'), tool('read_file')],
    stream: true,
    stream_options: { include_usage: true },
    tool_choice: 'auto',
    temperature: 0.3,
    metadata: { trace: 'keep me' },
  }
}

describe('buildServerToolFollowup (chat)', () => {
  test('a single call: original messages, the assistant as it came, then the tool result', () => {
    const original = deepFreeze(chatOriginal())
    const assistant = deepFreeze({ role: 'assistant', content: '', reasoning_content: 'I should search.', tool_calls: [call('call_1', 'web_search')] })
    const toolResults = deepFreeze([{ toolCallId: 'call_1', name: 'web_search', content: { results: [{ title: 'News', link: 'https://x' }] } }])
    const body = buildServerToolFollowup({ original, assistant, toolResults })
    assert.equal(body.messages.length, 4)
    assert.equal(body.messages[0], original.messages[0])
    assert.equal(body.messages[1], original.messages[1])
    assert.equal(body.messages[2], assistant, 'the assistant message is the same object, reasoning fields and all')
    assert.deepEqual(body.messages[3], { role: 'tool', tool_call_id: 'call_1', name: 'web_search', content: '{"results":[{"title":"News","link":"https://x"}]}' })
    assert.equal('stream' in body, false)
    assert.equal('stream_options' in body, false)
    assert.equal('tool_choice' in body, false)
    assert.deepEqual(body.tools.map((t) => t.function.name), ['read_file'])
    assert.equal(body.tools[0], original.tools[1])
    assert.equal(body.temperature, 0.3)
    assert.equal(body.metadata, original.metadata, 'every other field of original is kept')
    assert.equal(body.model, 'glm-4.6')
  })

  test("a gateway's canonical envelope {model, messages, tools, parameters}: stream and tool_choice leave parameters too", () => {
    const parameters = { temperature: 0.2, stream: true, stream_options: { include_usage: true }, tool_choice: 'required', extra: { keep: ['me'] } }
    const original = deepFreeze({ model: 'glm-4.6', messages: [{ role: 'user', content: '今天有什么新闻？' }], tools: [tool('web_search'), tool('read_file')], parameters })
    const assistant = { role: 'assistant', content: '', tool_calls: [call('call_1', 'web_search')] }
    const body = buildServerToolFollowup({ original, assistant, toolResults: [{ toolCallId: 'call_1', name: 'web_search', content: '结果' }] })
    assert.deepEqual(Object.keys(body.parameters), ['temperature', 'extra'])
    assert.equal(body.parameters.extra, parameters.extra, 'the other settings are the same objects')
    assert.equal(original.parameters.stream, true, 'the input is not mutated')
    // parameters without those keys is carried as the same object.
    const plain = { model: 'm', messages: [], parameters: { temperature: 1 } }
    assert.equal(buildServerToolFollowup({ original: plain, assistant, toolResults: [{ toolCallId: 'call_1', name: 'web_search', content: 'x' }] }).parameters, plain.parameters)
  })

  test('parallel calls: one result per call, in call order whatever the result order', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search'), call('b', 'web_search'), call('c', 'web_search')] }
    const toolResults = [
      { toolCallId: 'c', name: 'web_search', content: 'third' },
      { toolCallId: 'a', name: 'web_search', content: 'first' },
      { toolCallId: 'b', name: 'web_search', content: 'second' },
    ]
    const body = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults })
    assert.deepEqual(body.messages.slice(3).map((m) => [m.tool_call_id, m.content]), [['a', 'first'], ['b', 'second'], ['c', 'third']])
  })

  test('mixed server and client calls: every call needs its result (the client one too)', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [call('s1', 'web_search'), call('c1', 'read_file', '{"path":"a"}')] }
    assert.throws(
      () => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 's1', name: 'web_search', content: 'r' }] }),
      (e) => e.code === 'TOOL_RESULT_PAIRING' && e.toolCallId === 'c1' && /c1/.test(e.message),
    )
    const body = buildServerToolFollowup({
      original: chatOriginal(),
      assistant,
      toolResults: [
        { toolCallId: 'c1', name: 'read_file', content: 'file text' },
        { toolCallId: 's1', name: 'web_search', content: 'r' },
      ],
    })
    assert.deepEqual(body.messages.slice(3).map((m) => [m.tool_call_id, m.name]), [['s1', 'web_search'], ['c1', 'read_file']])
    assert.deepEqual(body.tools.map((t) => t.function.name), ['read_file'], 'the client tool stays')
  })

  test('a missing result: an error naming the id, or a synthetic error result', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search'), call('b', 'web_search')] }
    const toolResults = [{ toolCallId: 'a', name: 'web_search', content: 'ok' }]
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults }), (e) => e.toolCallId === 'b')
    const body = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults }, { onMissing: 'synthesize' })
    assert.equal(body.messages.length, 5)
    assert.equal(body.messages[4].tool_call_id, 'b')
    assert.match(body.messages[4].content, /No result/)
    const custom = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults }, { onMissing: 'synthesize', syntheticText: 'search failed' })
    assert.equal(custom.messages[4].content, 'search failed')
  })

  test('unknown and duplicated ids are errors naming the id', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search')] }
    const unknown = () => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: 'x' }, { toolCallId: 'nope', content: 'y' }] })
    assert.throws(unknown, (e) => e.toolCallId === 'nope' && /nope/.test(e.message))
    const twice = () => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: 'x' }, { toolCallId: 'a', content: 'y' }] })
    assert.throws(twice, (e) => e.toolCallId === 'a' && /already has a result/.test(e.message))
    const dupCalls = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search'), call('a', 'web_search')] }
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant: dupCalls, toolResults: [{ toolCallId: 'a', content: 'x' }] }), (e) => e.toolCallId === 'a' && /more than one call/.test(e.message))
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ content: 'x' }] }), /toolResults\[0\]: toolCallId is missing/)
  })

  test('several rounds: round k output is round k+1 original, nothing is applied twice', () => {
    const a1 = { role: 'assistant', content: null, tool_calls: [call('r1', 'web_search')] }
    const round1 = buildServerToolFollowup({ original: chatOriginal(), assistant: a1, toolResults: [{ toolCallId: 'r1', content: 'one' }] })
    const a2 = { role: 'assistant', content: null, tool_calls: [call('r2', 'web_search')] }
    const round2 = buildServerToolFollowup({ original: round1, assistant: a2, toolResults: [{ toolCallId: 'r2', content: 'two' }] })
    assert.deepEqual(round2.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'])
    assert.deepEqual(round2.messages.filter((m) => m.role === 'tool').map((m) => m.content), ['one', 'two'])
    // Feeding the same round again changes nothing.
    const again = buildServerToolFollowup({ original: round2, assistant: a2, toolResults: [{ toolCallId: 'r2', content: 'two' }] })
    assert.deepEqual(again, round2)
    assert.equal(again.messages.length, 6)
    // Applying round 1 twice to its own output does not duplicate either.
    const twice = buildServerToolFollowup({ original: round1, assistant: a1, toolResults: [{ toolCallId: 'r1', content: 'one' }] })
    assert.deepEqual(twice.messages, round1.messages)
  })

  test('property: over random rounds, applying any round a second time changes nothing', () => {
    let seed = 7
    const rand = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
    for (let trial = 0; trial < 20; trial++) {
      let body = chatOriginal()
      let expectedTools = 0
      for (let round = 0; round < 1 + rand(5); round++) {
        const ids = Array.from({ length: 1 + rand(4) }, (_, k) => `t${trial}_${round}_${k}`)
        const assistant = { role: 'assistant', content: null, tool_calls: ids.map((id) => call(id, 'web_search')) }
        const toolResults = ids.map((id) => ({ toolCallId: id, content: `r ${id}` })).reverse()
        const next = buildServerToolFollowup({ original: body, assistant, toolResults })
        assert.deepEqual(buildServerToolFollowup({ original: next, assistant, toolResults }), next)
        expectedTools += ids.length
        body = next
      }
      const tools = body.messages.filter((m) => m.role === 'tool')
      assert.equal(tools.length, expectedTools)
      // Every tool message answers the assistant call just before its run.
      let open = []
      for (const m of body.messages) {
        if (m.role === 'assistant') open = m.tool_calls.map((c) => c.id)
        if (m.role === 'tool') assert.equal(m.tool_call_id, open.shift())
      }
    }
  })

  test('a 1 MB tool output passes through whole', () => {
    const big = 'x'.repeat(1 << 20) + '✓'
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search')] }
    const body = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: big }] })
    assert.equal(body.messages[3].content, big)
    const obj = { pages: Array.from({ length: 2000 }, (_, i) => ({ i, text: 'y'.repeat(500) })) }
    const body2 = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: obj }] })
    assert.deepEqual(JSON.parse(body2.messages[3].content), obj)
  })

  test('a tools list of server tools only is removed rather than left empty', () => {
    const original = { ...chatOriginal(), tools: [tool('web_search')] }
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search')] }
    const body = buildServerToolFollowup({ original, assistant, toolResults: [{ toolCallId: 'a', content: 'r' }] })
    assert.equal('tools' in body, false)
  })

  test('serverTools names which tools leave the list', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'read_file')] }
    const body = buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: 'r' }], serverTools: ['read_file'] })
    assert.deepEqual(body.tools.map((t) => t.function.name), ['web_search'])
  })
})

describe('buildServerToolFollowup (responses)', () => {
  const original = () => ({
    model: 'gpt-5.2',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'news?' }] }],
    tools: [{ type: 'function', name: 'web_search', parameters: {} }, { type: 'function', name: 'shell', parameters: {} }],
    stream: true,
    tool_choice: 'required',
    reasoning: { effort: 'low' },
  })
  const output = [
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' },
    { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'web_search', arguments: '{"query":"x"}' },
    { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'web_search', arguments: '{"query":"y"}' },
  ]

  test('function_call_output items follow the output items, in call order', () => {
    const body = buildServerToolFollowup({
      protocol: 'responses',
      original: original(),
      assistant: { id: 'resp_1', output },
      toolResults: [
        { toolCallId: 'call_b', content: 'B' },
        { toolCallId: 'call_a', content: { hits: 2 } },
      ],
    })
    assert.equal(body.input.length, 6)
    assert.equal(body.input[1], output[0], 'the reasoning item is kept as it came')
    assert.deepEqual(body.input.slice(4), [
      { type: 'function_call_output', call_id: 'call_a', output: '{"hits":2}' },
      { type: 'function_call_output', call_id: 'call_b', output: 'B' },
    ])
    assert.deepEqual(body.tools.map((t) => t.name), ['shell'])
    assert.equal('stream' in body, false)
    assert.equal('tool_choice' in body, false)
    assert.deepEqual(body.reasoning, { effort: 'low' })
  })

  test('a string input becomes a user message; rounds are not applied twice', () => {
    const o = { ...original(), input: 'news?' }
    const body = buildServerToolFollowup({ protocol: 'responses', original: o, assistant: output, toolResults: [{ toolCallId: 'call_a', content: 'A' }, { toolCallId: 'call_b', content: 'B' }] })
    assert.deepEqual(body.input[0], { role: 'user', content: 'news?' })
    const again = buildServerToolFollowup({ protocol: 'responses', original: body, assistant: output, toolResults: [{ toolCallId: 'call_a', content: 'A' }, { toolCallId: 'call_b', content: 'B' }] })
    assert.deepEqual(again.input, body.input)
  })
})

describe('buildServerToolFollowup (anthropic)', () => {
  const original = () => ({
    model: 'claude-sonnet-4-5',
    system: 'Be brief.',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'news?' }],
    tools: [{ name: 'web_search', input_schema: { type: 'object' } }, { name: 'bash', input_schema: { type: 'object' } }],
    stream: true,
    tool_choice: { type: 'auto' },
  })
  const assistant = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'search', signature: 'sig' },
      { type: 'tool_use', id: 'toolu_1', name: 'web_search', input: { query: 'x' } },
      { type: 'tool_use', id: 'toolu_2', name: 'web_search', input: { query: 'y' } },
    ],
  }

  test('one user message of tool_result blocks, in call order', () => {
    const body = buildServerToolFollowup({
      protocol: 'anthropic',
      original: original(),
      assistant,
      toolResults: [{ toolCallId: 'toolu_2', content: 'two' }, { toolCallId: 'toolu_1', content: 'one' }],
    })
    assert.equal(body.messages.length, 3)
    assert.equal(body.messages[1], assistant)
    assert.deepEqual(body.messages[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'one' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'two' },
      ],
    })
    assert.equal(body.system, 'Be brief.')
    assert.equal(body.max_tokens, 1024)
    assert.deepEqual(body.tools.map((t) => t.name), ['bash'])
  })

  test('a synthesized result is marked is_error', () => {
    const body = buildServerToolFollowup({ protocol: 'anthropic', original: original(), assistant, toolResults: [{ toolCallId: 'toolu_1', content: 'one' }] }, { onMissing: 'synthesize' })
    assert.equal(body.messages[2].content[1].tool_use_id, 'toolu_2')
    assert.equal(body.messages[2].content[1].is_error, true)
  })
})

describe('buildServerToolFollowup bad input', () => {
  const assistant = { role: 'assistant', content: null, tool_calls: [call('a', 'web_search')] }
  const cases = [
    [null, /params: expected an object, got null/],
    [{ original: null, assistant, toolResults: [] }, /original: expected an object/],
    [{ original: { model: 'm', messages: 'hi' }, assistant, toolResults: [] }, /original\.messages: expected an array of messages, got string/],
    [{ original: chatOriginal(), assistant: 'x', toolResults: [] }, /assistant: expected the assistant message, got string/],
    [{ original: chatOriginal(), assistant, toolResults: {} }, /toolResults: expected an array/],
    [{ original: chatOriginal(), assistant, toolResults: [null] }, /toolResults\[0\]: expected an object/],
    [{ original: chatOriginal(), assistant, toolResults: [], protocol: 'grpc' }, /protocol: expected 'chat', 'responses' or 'anthropic'/],
    [{ original: chatOriginal(), assistant, toolResults: [], serverTools: 'web_search' }, /serverTools: expected an array of tool names/],
    [{ original: { model: 'm', input: 5 }, assistant: [], toolResults: [], protocol: 'responses' }, /original\.input: expected an array of items or a string/],
  ]
  for (const [params, re] of cases) {
    test(`rejects ${re}`, () => assert.throws(() => buildServerToolFollowup(params), (e) => e instanceof TypeError && re.test(e.message)))
  }

  test('unserialisable content is a TypeError naming the result', () => {
    const cyclic = {}
    cyclic.self = cyclic
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [{ toolCallId: 'a', content: cyclic }] }), /toolResults\[0\]\.content: could not be serialised/)
  })

  test('bad options are TypeErrors', () => {
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [] }, { onMissing: 'ignore' }), /options\.onMissing/)
    assert.throws(() => buildServerToolFollowup({ original: chatOriginal(), assistant, toolResults: [] }, { syntheticText: 3 }), /options\.syntheticText: expected a string/)
  })
})

describe('stripServerToolCalls', () => {
  test('chat: server calls removed, client calls kept, the input untouched', () => {
    const assistant = deepFreeze({ role: 'assistant', content: 'Let me check.', tool_calls: [call('s', 'web_search'), call('c', 'read_file')] })
    const out = stripServerToolCalls(assistant, ['web_search'])
    assert.deepEqual(out.tool_calls.map((c) => c.id), ['c'])
    assert.equal(out.tool_calls[0], assistant.tool_calls[1])
    assert.equal(out.content, 'Let me check.')
  })

  test('chat: with only server calls, tool_calls goes away; with none, the same object comes back', () => {
    const only = { role: 'assistant', content: 'Answer.', tool_calls: [call('s', 'web_search')] }
    assert.deepEqual(stripServerToolCalls(only), { role: 'assistant', content: 'Answer.' })
    const none = { role: 'assistant', content: 'x', tool_calls: [call('c', 'read_file')] }
    assert.equal(stripServerToolCalls(none), none)
    const plain = { role: 'assistant', content: 'x' }
    assert.equal(stripServerToolCalls(plain), plain)
  })

  test('anthropic and responses shapes', () => {
    const msg = { role: 'assistant', content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', id: 't1', name: 'web_search', input: {} }, { type: 'tool_use', id: 't2', name: 'bash', input: {} }] }
    assert.deepEqual(stripServerToolCalls(msg).content.map((b) => b.type + ':' + (b.name || '')), ['text:', 'tool_use:bash'])
    const items = [{ type: 'message', role: 'assistant', content: [] }, { type: 'function_call', call_id: 'a', name: 'web_search', arguments: '{}' }]
    assert.deepEqual(stripServerToolCalls(items), [items[0]])
    const resp = { id: 'resp', output: items }
    const out = stripServerToolCalls(resp)
    assert.equal(out.id, 'resp')
    assert.deepEqual(out.output, [items[0]])
  })

  test('bad input is a TypeError', () => {
    assert.throws(() => stripServerToolCalls(null), /assistant: expected/)
    assert.throws(() => stripServerToolCalls({ content: [] }, 'web_search'), /serverTools: expected an array/)
  })
})
