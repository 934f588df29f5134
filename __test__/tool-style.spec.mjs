import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { convertToolStyle, recoverToolBlocks, detectToolStyle, toOpenAiMessages } = require('../index.js')

function deepFreeze(v) {
  if (v && typeof v === 'object') {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze(v[k])
  }
  return v
}

const tools = [
  { name: 'read_file', input_schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'object' } } } } },
  { name: 'write_to_file', input_schema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' }, line_count: { type: 'integer' } } } },
  { name: 'execute_command', input_schema: { type: 'object', properties: { command: { type: 'string' }, cwd: { type: ['string', 'null'] } } } },
  { name: 'list_files', input_schema: { type: 'object', properties: { path: { type: 'string' }, recursive: { type: 'boolean' } } } },
  { type: 'function', function: { name: 'attempt_completion', parameters: { type: 'object', properties: { result: { type: 'string' } } } } },
]

const env = { type: 'text', text: '<environment_details>\n# VSCode Visible Files\nsrc/a.ts\n</environment_details>' }

/** A native Kilo/Roo history: prose + tool_use, then tool_result(s) + environment details. */
function nativeHistory() {
  return [
    { role: 'user', content: [{ type: 'text', text: '<task>\nFix the build\n</task>' }, env], ts: 1 },
    { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_01', name: 'execute_command', input: { command: 'npm run build 2>&1 | head', cwd: null } }], ts: 2 },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: "Command executed in terminal  within working directory '/w'. Exit code: 1\nOutput:\nerror TS2304" }, env] },
    { role: 'assistant', content: [{ type: 'text', text: 'Rewriting.' }, { type: 'tool_use', id: 'call:02|x', name: 'write_to_file', input: { path: 'src/a.ts', content: '\nexport const a = 1 < 2 && "</content>"\n\n', line_count: 3 } }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call:02|x', content: [{ type: 'text', text: "[write_to_file for 'src/a.ts'] Result:" }, { type: 'text', text: '<file_write_result>\n<path>src/a.ts</path>\n</file_write_result>' }] }, env],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_03', name: 'list_files', input: { path: '.', recursive: true } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_03', content: 'a.ts\nb.ts' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Done.' }, { type: 'tool_use', id: 'toolu_04', name: 'attempt_completion', input: { result: 'Fixed: 😀 é' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_04', content: '' }, { type: 'text', text: 'thanks' }] },
  ]
}

/** The history with every tool id replaced by its order of appearance (ids aside). */
function withoutIds(history) {
  const map = new Map()
  const norm = (id) => {
    if (!map.has(id)) map.set(id, `id${map.size}`)
    return map.get(id)
  }
  return history.map((m) =>
    Array.isArray(m.content)
      ? {
          ...m,
          content: m.content.map((b) => (b.type === 'tool_use' ? { ...b, id: norm(b.id) } : b.type === 'tool_result' ? { ...b, tool_use_id: norm(b.tool_use_id) } : b)),
        }
      : m,
  )
}

describe('convertToolStyle', () => {
  test("'xml' writes calls and results exactly as resumeTaskFromHistory did", () => {
    const h = deepFreeze(nativeHistory())
    const x = convertToolStyle(h, 'xml')
    assert.equal(x[1].content[1].text, '<execute_command>\n<command>\nnpm run build 2>&1 | head\n</command>\n<cwd>\nnull\n</cwd>\n</execute_command>')
    assert.equal(x[2].content[0].text, "[execute_command Result]\n\nCommand executed in terminal  within working directory '/w'. Exit code: 1\nOutput:\nerror TS2304")
    assert.equal(x[4].content[0].text, "[write_to_file Result]\n\n[write_to_file for 'src/a.ts'] Result:\n\n<file_write_result>\n<path>src/a.ts</path>\n</file_write_result>")
    assert.equal(x[5].content[0].text, '<list_files>\n<path>\n.\n</path>\n<recursive>\ntrue\n</recursive>\n</list_files>')
    assert.equal(x[8].content[0].text, '[attempt_completion Result]\n\n')
    // Block order is kept, other blocks and untouched messages are the same objects, extra keys survive.
    assert.equal(x[0], h[0])
    assert.equal(x[1].content[0], h[1].content[0])
    assert.equal(x[2].content[1], env)
    assert.equal(x[1].ts, 2)
    assert.equal(x.length, h.length)
  })

  test("'xml' names results of unknown ids 'Unknown Tool', drops images, and coerces values as JS does", () => {
    const h = deepFreeze([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: { files: [{ path: 'x' }], n: [1, 2], e: {} } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'one' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'text', text: 'two' }], is_error: true },
          { type: 'tool_result', tool_use_id: 'nope', content: 'orphan' },
        ],
      },
    ])
    const x = convertToolStyle(h, 'xml')
    assert.equal(x[0].content[0].text, '<read_file>\n<files>\n[object Object]\n</files>\n<n>\n1,2\n</n>\n<e>\n[object Object]\n</e>\n</read_file>')
    assert.deepEqual(x[1].content, [
      { type: 'text', text: '[read_file Result]\n\none\n\ntwo' },
      { type: 'text', text: '[Unknown Tool Result]\n\norphan' },
    ])
  })

  test("'json' recovers flattened blocks and keeps native ones", () => {
    const h = deepFreeze(nativeHistory())
    const mixed = deepFreeze([...convertToolStyle(h.slice(0, 5), 'xml'), ...h.slice(5)])
    const j = convertToolStyle(mixed, 'json', { tools })
    assert.equal(detectToolStyle(mixed).style, 'mixed')
    assert.equal(detectToolStyle(j).style, 'json')
    assert.equal(j[5], mixed[5])
  })

  test("'xml' writes a lone surrogate of an input as U+FFFD instead of failing", () => {
    const x = convertToolStyle([{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: { v: 'a\uD800b' } }] }], 'xml')
    assert.equal(x[0].content[0].text, '<x>\n<v>\na\uFFFDb\n</v>\n</x>')
  })

  test('a bad style or argument is a TypeError naming it', () => {
    assert.throws(() => convertToolStyle([], 'yaml'), { name: 'TypeError', message: `style: expected 'xml' or 'json', got "yaml"` })
    assert.throws(() => convertToolStyle([], 5), { name: 'TypeError', message: `style: expected 'xml' or 'json', got number` })
    assert.throws(() => convertToolStyle({}, 'xml'), { name: 'TypeError', message: 'history: expected an array of messages, got an object' })
    assert.throws(() => convertToolStyle([{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: [1] }] }], 'xml'), {
      name: 'TypeError',
      message: 'history[0].content[0].input: expected an object, got an array',
    })
    assert.throws(() => convertToolStyle([{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: { n: 1n } }] }], 'xml'), {
      name: 'TypeError',
      message: /^history\[0\]\.content\[0\]\.input: could not be serialised as JSON/,
    })
  })
})

describe('recoverToolBlocks', () => {
  test('native -> xml -> recover gives the native history back (ids aside)', () => {
    const h = deepFreeze(nativeHistory())
    const flat = deepFreeze(convertToolStyle(h, 'xml'))
    const r = recoverToolBlocks(flat, { tools })
    assert.deepEqual(withoutIds(r.history), withoutIds(h))
    assert.deepEqual(r.unrecoverable, [])
    assert.deepEqual(r.warnings, [])
    assert.equal(r.recovered.length, 4)
    for (const p of r.recovered) assert.match(p.id, /^[a-zA-Z0-9_-]+$/)
    assert.deepEqual(r.recovered[0], { id: 'toolu_recovered_1_1', name: 'execute_command', call: 'history[1].content[1]', result: 'history[2].content[0]', source: 'flattened' })
    // Untouched messages and blocks are the very same objects.
    assert.equal(r.history[0], flat[0])
    assert.equal(r.history[1].content[0], flat[1].content[0])
    assert.equal(r.history[2].content[1], flat[2].content[1])
  })

  test('the round trip over many generated histories, lossy values only where reported', () => {
    let seed = 7
    const rnd = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const values = ['', '\n', '\n\nx\n\n', 'a</path>b', 'x\n</content>\ny', '<b>&amp;</b>', 'é😀', 'null', '42', 'line1\nline2']
    for (let round = 0; round < 60; round++) {
      const h = [{ role: 'user', content: 'task' }]
      const lossy = new Set()
      for (let t = 0; t < 1 + rnd(4); t++) {
        const id = `t${round}_${t}`
        const m = h.length
        const kind = rnd(4)
        let input
        if (kind === 0) input = { path: values[rnd(values.length)], content: values[rnd(values.length)], line_count: rnd(100) }
        else if (kind === 1) input = { command: values[rnd(values.length)], cwd: rnd(2) ? null : values[rnd(values.length)] }
        else if (kind === 2) input = { path: values[rnd(values.length)], recursive: rnd(2) === 1 }
        else {
          input = { files: [{ path: 'a' }] }
          lossy.add(`history[${m}].content[1].input.files`)
        }
        const name = ['write_to_file', 'execute_command', 'list_files', 'read_file'][kind]
        h.push({ role: 'assistant', content: [{ type: 'text', text: `step ${t}` }, { type: 'tool_use', id, name, input }] })
        h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: values[rnd(values.length)] }, env] })
      }
      const r = recoverToolBlocks(convertToolStyle(h, 'xml'), { tools })
      assert.deepEqual(new Set(r.unrecoverable.map((u) => u.path)), lossy, `round ${round}`)
      const strip = (hist) =>
        withoutIds(hist).map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((b) => (b.type === 'tool_use' && b.name === 'read_file' ? { ...b, input: 'lossy' } : b)) } : m))
      assert.deepEqual(strip(r.history), strip(h), `round ${round}`)
    }
  })

  test('recovery is idempotent, and a history with nothing flattened comes back as the same objects', () => {
    const flat = deepFreeze(convertToolStyle(nativeHistory(), 'xml'))
    const once = recoverToolBlocks(flat, { tools })
    const twice = recoverToolBlocks(once.history, { tools })
    assert.equal(twice.history, once.history)
    assert.deepEqual(twice.recovered, [])
    const native = deepFreeze(nativeHistory())
    const r = recoverToolBlocks(native)
    assert.equal(r.history, native)
    r.history.forEach((m, i) => assert.equal(m, native[i]))
  })

  test('without schemas values stay strings; objects are reported with their path, never guessed', () => {
    const flat = deepFreeze(convertToolStyle(
      [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: { files: [{ path: 'src/a.ts', line_ranges: null }] } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '<files/>' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'execute_command', input: { command: 'ls', cwd: null } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'ok' }] },
      ],
      'xml',
    ))
    const r = recoverToolBlocks(flat)
    assert.deepEqual(r.history[0].content[0].input, { files: '[object Object]' })
    assert.deepEqual(r.history[2].content[0].input, { command: 'ls', cwd: 'null' })
    assert.deepEqual(r.unrecoverable.map((u) => [u.path, u.kind]), [['history[0].content[0].input.files', 'object_lost']])
  })

  test('truncated XML, a value holding its closing tag, unknown tools, lone results and lone calls: reported, nothing lost', () => {
    const cut = '<write_to_file>\n<path>\na.ts\n</path>\n<content>\nhalf a fi'
    const h = deepFreeze([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'text', text: cut }] },
      { role: 'user', content: [{ type: 'text', text: '[Unknown Tool Result]\n\nstray' }] },
      { role: 'assistant', content: [{ type: 'text', text: '<write_to_file>\n<path>\nb.ts\n</path>\n<content>\nx </content> y\n</content>\n</write_to_file>' }, { type: 'text', text: '<my_mcp_tool>\n<q>\n1\n</q>\n</my_mcp_tool>' }] },
      { role: 'user', content: [{ type: 'text', text: '[write_to_file Result]\n\nok' }, env] },
      { role: 'assistant', content: [{ type: 'text', text: '<list_files>\n<path>\n.\n</path>\n</list_files>' }] },
    ])
    const r = recoverToolBlocks(h, { tools })
    assert.equal(r.history.length, h.length)
    assert.equal(r.history[1], h[1])
    assert.equal(r.history[2], h[2])
    assert.deepEqual(r.unrecoverable.map((u) => [u.path, u.kind]), [['history[1].content[0]', 'truncated_call']])
    assert.deepEqual(
      r.warnings.map((w) => [w.path, w.kind]),
      [
        ['history[2].content[0]', 'result_without_call'],
        ['history[3].content[1]', 'unknown_tool'],
        ['history[3].content[1]', 'call_without_result'],
        ['history[5].content[0]', 'call_without_result'],
      ],
    )
    assert.deepEqual(r.history[3].content[0].input, { path: 'b.ts', content: 'x </content> y' })
    assert.equal(r.history[4].content[0].tool_use_id, r.history[3].content[0].id)
    assert.deepEqual(r.history[4].content[1], { type: 'tool_result', tool_use_id: r.history[3].content[1].id, content: 'Task was interrupted before this tool call could be completed.', is_error: true })
    assert.equal(r.history[4].content[2], env)
    assert.equal(r.history[5].content[0].type, 'tool_use')
  })

  test('several results for one call are merged, native or flattened', () => {
    const h = deepFreeze([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'feedback' }], cache: 1 }, { type: 'tool_result', tool_use_id: 'x', content: 'output', is_error: true }, env] },
    ])
    const r = recoverToolBlocks(h)
    assert.deepEqual(r.history[1].content, [{ type: 'tool_result', tool_use_id: 'x', content: [h[1].content[0].content[0], { type: 'text', text: 'output' }], cache: 1, is_error: true }, env])
    assert.equal(r.history[1].content[0].content[0], h[1].content[0].content[0])
    const flat = deepFreeze(convertToolStyle(h, 'xml'))
    const f = recoverToolBlocks(flat)
    assert.deepEqual(f.history[1].content[0].content, [{ type: 'text', text: 'feedback' }, { type: 'text', text: 'output' }])
    assert.equal(f.history[1].content.length, 2)
    assert.ok(f.warnings.some((w) => w.kind === 'merged_results'))
  })

  test('call-less Kilo v4.106-v4.111.0 histories get the call their result describes', () => {
    const h = deepFreeze([
      { role: 'assistant', content: [{ type: 'text', text: '' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: "[read_file for 'src/a.ts'. Reading multiple files at once is more efficient for the LLM. If other files are relevant to your current task, please read them simultaneously.] Result:" },
          { type: 'text', text: '<files>…</files>' },
          env,
        ],
      },
    ])
    const r = recoverToolBlocks(h)
    const call = r.history[0].content[0]
    assert.deepEqual(r.history[0].content, [{ type: 'tool_use', id: call.id, name: 'read_file', input: { files: [{ path: 'src/a.ts' }] } }])
    assert.deepEqual(r.history[1].content, [{ type: 'tool_result', tool_use_id: call.id, content: [h[1].content[0], h[1].content[1]] }, env])
    assert.deepEqual(r.unrecoverable.map((u) => u.kind), ['call_not_recorded'])
  })

  test('genuine XML-protocol text is left alone unless options.xmlProtocol asks', () => {
    const h = deepFreeze([
      { role: 'assistant', content: [{ type: 'text', text: 'Reading it.\n\n<read_file>\n<path>src/a.ts</path>\n</read_file>' }] },
      { role: 'user', content: [{ type: 'text', text: "[read_file for 'src/a.ts'] Result:" }, { type: 'text', text: 'body' }, env] },
    ])
    assert.equal(recoverToolBlocks(h).history, h)
    assert.equal(detectToolStyle(h).style, 'xml')
    const r = recoverToolBlocks(h, { xmlProtocol: true })
    assert.deepEqual(r.history[0].content, [{ type: 'text', text: 'Reading it.\n\n' }, { type: 'tool_use', id: r.recovered[0].id, name: 'read_file', input: { path: 'src/a.ts' } }])
    assert.equal(r.history[1].content[0].content[1], h[1].content[1])
  })

  test('lone surrogates in texts survive (the caller\'s strings are sliced)', () => {
    const h = deepFreeze([
      { role: 'assistant', content: [{ type: 'text', text: '<write_to_file>\n<content>\nbad \uD800 é\n</content>\n</write_to_file>' }] },
      { role: 'user', content: [{ type: 'text', text: '[write_to_file Result]\n\n\uDC00ok' }] },
    ])
    const r = recoverToolBlocks(h)
    assert.equal(r.history[0].content[0].input.content, 'bad \uD800 é')
    assert.equal(r.history[1].content[0].content, '\uDC00ok')
  })

  test('bad arguments are TypeErrors naming the path', () => {
    const cases = [
      [() => recoverToolBlocks('x'), 'history: expected an array of messages, got string'],
      [() => recoverToolBlocks([null]), 'history[0]: expected a message object, got null'],
      [() => recoverToolBlocks([{ role: 'user', content: 3 }]), 'history[0].content: expected a string or an array of content blocks, got number'],
      [() => recoverToolBlocks([{ role: 'user', content: ['x'] }]), 'history[0].content[0]: expected a content block object, got string'],
      [() => recoverToolBlocks([{ content: 'x' }]), 'history[0].role: expected a string, got undefined'],
      [() => recoverToolBlocks([{ role: 'user', content: [{ type: 'text', text: 1 }] }]), 'history[0].content[0].text: expected a string, got number'],
      [() => recoverToolBlocks([{ role: 'user', content: [{ type: 'tool_result', content: [7] }] }]), 'history[0].content[0].content[0]: expected a content block object, got number'],
      [() => recoverToolBlocks([], { tools: {} }), 'options.tools: expected an array of tool definitions, got an object'],
      [() => recoverToolBlocks([], { tools: [3] }), 'options.tools[0]: expected a tool definition object, got number'],
      [() => recoverToolBlocks([], { xmlProtocol: 'yes' }), 'options.xmlProtocol: expected a boolean, got string'],
      [() => recoverToolBlocks([], 5), 'options: expected an object, got number'],
    ]
    for (const [fn, message] of cases) assert.throws(fn, { name: 'TypeError', message })
  })
})

describe('detectToolStyle', () => {
  test('json, xml, mixed and none, with evidence paths', () => {
    const h = nativeHistory()
    assert.equal(detectToolStyle(h).style, 'json')
    assert.deepEqual(detectToolStyle([{ role: 'user', content: 'hi' }]), { style: 'none', evidence: [] })
    const flat = convertToolStyle(h, 'xml')
    const d = detectToolStyle(flat)
    assert.equal(d.style, 'xml')
    assert.deepEqual(d.evidence.slice(0, 2), [
      { path: 'history[1].content[1]', kind: 'flattened_call' },
      { path: 'history[2].content[0]', kind: 'flattened_result' },
    ])
    const mixed = detectToolStyle([...flat.slice(0, 3), ...h.slice(3)])
    assert.equal(mixed.style, 'mixed')
    assert.ok(mixed.evidence.some((e) => e.kind === 'tool_use') && mixed.evidence.some((e) => e.kind === 'flattened_call'))
  })
})

describe('toOpenAiMessages', () => {
  test('tool messages first, then one user message with the tool images and the user blocks', () => {
    const png = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } }
    const h = deepFreeze([
      { role: 'user', content: 'open the page' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Opening.' }, { type: 'tool_use', id: 'c1', name: 'browser_action', input: { action: 'launch', url: 'http://x' } }],
        reasoning_details: [{ type: 'reasoning.text', text: 'r' }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'Launched' }, png] },
          { type: 'text', text: 'Looks right?' },
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c2', name: 'attempt_completion', input: { result: 'ok' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c2', content: 'accepted' }] },
    ])
    assert.deepEqual(toOpenAiMessages(h), [
      { role: 'user', content: 'open the page' },
      {
        role: 'assistant',
        content: 'Opening.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'browser_action', arguments: '{"action":"launch","url":"http://x"}' } }],
        reasoning_details: [{ type: 'reasoning.text', text: 'r' }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Launched\n(see following user message for image)' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          { type: 'text', text: 'Looks right?' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
      { role: 'assistant', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'attempt_completion', arguments: '{"result":"ok"}' } }] },
      { role: 'tool', tool_call_id: 'c2', content: 'accepted' },
    ])
  })

  test('a bad image source is a TypeError naming it', () => {
    assert.throws(() => toOpenAiMessages([{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }]), {
      name: 'TypeError',
      message: /^history\[0\]\.content\[0\]\.source: expected an image source/,
    })
  })
})

describe('bad and random input', () => {
  test('histories built from tag fragments: no crash, no message lost, recovery idempotent', () => {
    let seed = 11
    const rnd = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const frags = ['<read_file>', '</read_file>', '<path>', '</path>', '\n', 'x', '[read_file Result]\n\n', "[read_file for 'a'] Result:", '[Unknown Tool Result]\n\n', '<environment_details>', '</content>', '😀', '\uD800', '<', ']']
    const text = () => Array.from({ length: rnd(8) }, () => frags[rnd(frags.length)]).join('')
    for (let round = 0; round < 200; round++) {
      const h = []
      for (let i = 0; i < 1 + rnd(6); i++) {
        const role = rnd(2) ? 'assistant' : 'user'
        const blocks = Array.from({ length: rnd(4) }, () => {
          const k = rnd(6)
          if (k === 0) return { type: 'tool_use', id: `i${rnd(3)}`, name: 'read_file', input: { path: text() } }
          if (k === 1) return { type: 'tool_result', tool_use_id: `i${rnd(3)}`, content: rnd(2) ? text() : [{ type: 'text', text: text() }] }
          if (k === 2) return { type: 'thinking', thinking: 'x' }
          return { type: 'text', text: text() }
        })
        h.push({ role, content: rnd(5) ? blocks : text() })
      }
      deepFreeze(h)
      for (const opts of [undefined, { xmlProtocol: true }]) {
        const r = recoverToolBlocks(h, opts)
        assert.equal(r.history.length, h.length)
        const again = recoverToolBlocks(r.history, opts)
        assert.equal(again.history, r.history, `round ${round}: a second recovery changes nothing`)
      }
      assert.equal(convertToolStyle(h, 'xml').length, h.length)
      assert.ok(['json', 'xml', 'mixed', 'none'].includes(detectToolStyle(h).style))
      assert.ok(Array.isArray(toOpenAiMessages(h)))
    }
  })
})

// A real Cline task with native calls whose results were stored as user text
// (fixtures/cline/README.md gives its source).
describe('Cline: native calls answered by result text', () => {
  const fs = require('node:fs')
  const history = deepFreeze(JSON.parse(fs.readFileSync(new URL('./fixtures/cline/text-results.json', import.meta.url), 'utf8')))
  const calls = history.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use') : []))

  test('detectToolStyle calls it mixed, naming each result text', () => {
    const d = detectToolStyle(history)
    assert.equal(d.style, 'mixed')
    assert.deepEqual(
      d.evidence.filter((e) => e.kind === 'text_result').map((e) => e.path),
      ['history[2].content[0]', 'history[4].content[0]', 'history[6].content[0]'],
    )
  })

  test('toOpenAiMessages answers every call with a tool message holding its result text', () => {
    const out = toOpenAiMessages(history)
    for (const c of calls) {
      const i = out.findIndex((m) => m.tool_calls?.some((t) => t.id === c.id))
      assert.equal(out[i + 1].role, 'tool', `the message after ${c.id}'s call`)
      assert.equal(out[i + 1].tool_call_id, c.id)
      assert.match(out[i + 1].content, /^\[(subagents|execute_command for '.*')\] Result:\n/)
    }
    // The text moved to the tool message; the environment details stay user text.
    assert.deepEqual(out[3], { role: 'user', content: [{ type: 'text', text: history[2].content[1].text }] })
    // A call no text answers gets what Cline sends for it.
    const cut = [history[3], { role: 'user', content: [{ type: 'text', text: 'stop' }] }]
    assert.deepEqual(toOpenAiMessages(cut)[1], { role: 'tool', tool_call_id: calls[1].id, content: 'result missing' })
  })

  test('recoverToolBlocks makes each result text its call\'s tool_result; a round trip through xml keeps them', () => {
    const r = recoverToolBlocks(history)
    assert.deepEqual(r.warnings, [])
    assert.deepEqual(r.recovered.map((p) => [p.id, p.source]), calls.map((c) => [c.id, 'text_result']))
    for (const m of [2, 4, 6]) {
      assert.deepEqual(r.history[m].content[0], { type: 'tool_result', tool_use_id: history[m - 1].content.at(-1).id, content: history[m].content[0].text })
      assert.equal(r.history[m].content[1], history[m].content[1], 'other blocks are the same objects')
    }
    assert.equal(r.history[1], history[1])
    const back = convertToolStyle(convertToolStyle(history, 'xml'), 'json')
    const results = back.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []))
    assert.equal(results.length, calls.length)
    for (const res of results) {
      assert.notEqual(res.is_error, true)
      assert.match(res.content, /\] Result:\n/)
    }
  })
})
