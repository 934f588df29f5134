// The contracts every transcript function keeps (ARCHITECTURE.md, "Contracts every function keeps"):
// inputs are never mutated, untouched messages and blocks come back as the same objects, unknown
// fields and key order survive, and bad input never crashes: it is either passed through or
// rejected with a TypeError naming the path.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { th, runFrozen, text, toolCall } from './fixtures/helpers.mjs'
import { OPS, NOT_MESSAGE_OPS, attempt } from './fixtures/ops.mjs'
import { encodePng } from './fixtures/png.mjs'

// The contracts are checked in OpenClaw 2026.3.23 mode (its rules pass null entries and unknown
// blocks through; 2026.9.6 drops some on purpose): pinned, whatever the package default is.
th.setOpenClawVersion('2026.3.23')

const SMALL_PNG = encodePng(8, 8).toString('base64')
const CANON = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 }
const RS = JSON.stringify({ id: 'rs_1', type: 'reasoning' })

// ---- a transcript on which nearly every rule fires, every object tagged ----

/**
 * A fresh transcript in which every message carries unknown fields (`x_id` right after `role`,
 * `x_tail` last) and every block an `x_bid`. Blocks marked `x_fixed` are ones no rule may change.
 */
function rich() {
  let n = 0
  const B = (o, fixed = false) => ({ ...o, x_bid: `b${n}`, x_meta: { n: n++ }, ...(fixed ? { x_fixed: true } : {}) })
  const S = (label) => B({ type: 'text', text: `sentinel ${label}`, x_note: { label } }, true)
  const M = (id, role, rest) => ({ role, x_id: id, ...rest, x_tail: { id, nested: { list: [1, 2, 3] } } })
  return [
    M('u0', 'user', { content: 'forwarded instruction', timestamp: 10, provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } }),
    M('a1', 'assistant', {
      content: [
        B({ type: 'thinking', thinking: 'hmm', thinkingSignature: 'c2ln' }),
        B({ type: 'text', text: '', thought_signature: 'msg_1' }),
        S('a1'),
        B({ type: 'toolCall', id: 'call_a|fc_1', name: ' read ', arguments: { path: 'a' }, thoughtSignature: 'not base64!' }),
        B({ type: 'toolCall', id: 'call_bad', name: 'read' }),
        B({ type: 'citation', url: 'https://example.com' }, true),
      ],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-opus-4-6',
      stopReason: 'toolUse',
      usage: { output: 3 },
      timestamp: 20,
    }),
    M('u2', 'user', { content: [S('u2')], timestamp: 25 }),
    M('r3', 'toolResult', { toolCallId: 'call_a|fc_1', toolName: '  read ', content: [S('r3'), B({ type: 'image', data: SMALL_PNG, mimeType: 'image/png' }, true)], details: { raw: 'x' }, isError: false, timestamp: 30 }),
    M('r4', 'toolResult', { toolCallId: 'ghost', toolName: 'read', content: [S('r4')], isError: false, timestamp: 31 }),
    M('a5', 'assistant', { content: [S('a5'), B({ type: 'toolCall', id: 'call_b', name: 'exec', arguments: { cmd: 'ls' } })], stopReason: 'toolUse', usage: { ...CANON }, timestamp: 40 }),
    M('u6', 'user', { content: [S('u6')], timestamp: 50 }),
    M('u7', 'user', { content: [S('u7')], timestamp: 51 }),
    M('a8', 'assistant', { content: [B({ type: 'thinking', thinking: 'r', thinkingSignature: RS })], stopReason: 'stop', usage: { ...CANON }, timestamp: 60 }),
    M('a9', 'assistant', { content: [S('a9')], stopReason: 'stop', usage: { ...CANON }, timestamp: 61 }),
    M('c10', 'compactionSummary', { summary: 's', tokensBefore: 100, timestamp: new Date(62).toISOString() }),
    M('s11', 'system', { content: [B({ type: 'mystery', payload: 1 }, true)], timestamp: 63 }),
    M('u12', 'user', { content: [S('u12')], timestamp: 70 }),
    M('a13', 'assistant', { content: [S('a13'), B({ type: 'toolUse', id: 'tu1', name: 'read', input: {} })], stopReason: 'toolUse', usage: { ...CANON }, timestamp: 80 }),
    M('u14', 'user', { content: [S('u14')], timestamp: 90 }),
    M('a15', 'assistant', { content: [S('a15')], stopReason: 'stop', usage: { ...CANON }, timestamp: 100 }),
    M('u16', 'user', { content: [S('u16')], timestamp: 110 }),
  ]
}

/** Operations that only act on a transcript starting with an assistant get `rich()` without u0. */
const ASSISTANT_FIRST = new Set(['sanitizeGoogleTurnOrdering', 'applyGoogleTurnOrderingFix'])

/** Messages no rule touches in `rich()`: they must come back as the same objects when present. */
const BYSTANDERS = ['s11', 'a15', 'u16']

/** Keys of `after` that also exist in `before` must keep `before`'s relative order. */
function assertOrderKept(before, after, where) {
  const common = Object.keys(after).filter((k) => k in before)
  const expected = Object.keys(before).filter((k) => common.includes(k))
  assert.deepEqual(common, expected, `${where}: key order changed`)
}

/** The generic contract checks of one output against its (tagged) input. */
function checkTagged(input, out, label) {
  assert.ok(Array.isArray(out), `${label}: not an array`)
  const byId = new Map(input.map((m) => [m.x_id, m]))
  const blocks = new Map()
  for (const m of input) if (Array.isArray(m.content)) for (const b of m.content) if (b && b.x_bid) blocks.set(b.x_bid, b)

  for (const [i, m] of out.entries()) {
    const where = `${label}: output[${i}]`
    if (!m || typeof m !== 'object') continue
    if (m.x_id === undefined) {
      // Only synthetic messages may lack the unknown fields: a synthetic result or the bootstrap.
      const synthetic = (m.role === 'toolResult' && m.isError === true) || (m.role === 'user' && m.content === '(session bootstrap)')
      assert.ok(synthetic, `${where}: a message lost its unknown fields: ${JSON.stringify(m).slice(0, 200)}`)
      continue
    }
    const src = byId.get(m.x_id)
    if (BYSTANDERS.includes(m.x_id)) assert.equal(m, src, `${where}: untouched message ${m.x_id} is not the same object`)
    if (m !== src) {
      assert.equal(m.x_tail, src.x_tail, `${where}: unknown field x_tail not kept by reference`)
      assertOrderKept(src, m, where)
    }
    if (!Array.isArray(m.content)) continue
    for (const [j, b] of m.content.entries()) {
      if (!b || typeof b !== 'object') continue
      if (b.x_bid === undefined) {
        assert.equal(b.type, 'text', `${where}.content[${j}]: a block lost its unknown fields: ${JSON.stringify(b).slice(0, 200)}`)
        continue
      }
      const sb = blocks.get(b.x_bid)
      if (sb.x_fixed) assert.equal(b, sb, `${where}.content[${j}]: untouched block ${b.x_bid} is not the same object`)
      if (b !== sb) {
        assert.equal(b.type, sb.type, `${where}.content[${j}]: block type changed`)
        assert.equal(b.x_meta, sb.x_meta, `${where}.content[${j}]: unknown field x_meta not kept by reference`)
        assertOrderKept(sb, b, `${where}.content[${j}]`)
      }
    }
  }
  // Every bystander survives unless the operation drops history (limitHistoryTurns keeps the tail).
  for (const id of BYSTANDERS.slice(1)) assert.ok(out.includes(byId.get(id)), `${label}: ${id} missing`)
}

describe('contracts: coverage', () => {
  test('every exported transcript function is covered by these contract tests', () => {
    const covered = new Set([...OPS.map(([, name]) => name), ...NOT_MESSAGE_OPS])
    const transcriptApi = createRequire(import.meta.url)('../js/transcript.js')
    for (const name of Object.keys(transcriptApi)) {
      assert.equal(typeof th[name], 'function', `${name} is not exported from index.js`)
      assert.ok(covered.has(name), `${name} has no contract test`)
    }
  })
})

describe('contracts: inputs are never mutated, untouched objects are returned as they are', () => {
  for (const [label, name, fn] of OPS) {
    test(label, () => {
      const input = ASSISTANT_FIRST.has(name) ? rich().slice(1) : rich()
      const out = runFrozen(fn, input)
      checkTagged(input, out, label)
      // The operation actually did something to this transcript (otherwise the checks prove little).
      assert.ok(out !== input && !(out.length === input.length && out.every((m, i) => m === input[i])), `${label} changed nothing`)
    })
  }

  test('stripThoughtSignatures: content not mutated, untouched blocks kept, unknown fields and order kept', () => {
    const plain = { type: 'text', text: 'plain', x: { y: 1 } }
    const content = [plain, { type: 'toolCall', x_first: 1, id: 'c', thoughtSignature: 'bad sig!', name: 'read', arguments: {}, x_last: { z: 2 } }, null, 'stray']
    const out = runFrozen((c) => th.stripThoughtSignatures(c, { allowBase64Only: true, includeCamelCase: true }), content)
    assert.equal(out[0], plain)
    assert.deepEqual(Object.keys(out[1]), ['type', 'x_first', 'id', 'name', 'arguments', 'x_last'])
    assert.equal(out[1].x_last, content[1].x_last)
    assert.equal(out[2], null)
    assert.equal(out[3], 'stray')
  })

  test('mergeConsecutiveUserTurns: inputs not mutated, blocks and unknown fields kept by reference', () => {
    const a = text('a')
    const b = { type: 'mystery', payload: { big: true } }
    const prev = { role: 'user', x_prev: { p: 1 }, content: [a], timestamp: 1 }
    const cur = { role: 'user', x_cur: { c: 1 }, content: [b], timestamp: 2 }
    const out = runFrozen(([p, c]) => th.mergeConsecutiveUserTurns(p, c), [prev, cur])
    assert.equal(out.content[0], a)
    assert.equal(out.content[1], b)
    assert.equal(out.x_cur, cur.x_cur)
    assert.deepEqual(Object.keys(out), ['role', 'x_cur', 'content', 'timestamp'])
  })

  test('a changed message keeps a self-referencing unknown field by reference', () => {
    const tr = { role: 'toolResult', toolCallId: 'call_1|x', toolName: 'read', content: [text('r')], isError: false, timestamp: 3 }
    tr.self = tr
    const input = [{ role: 'assistant', content: [toolCall('call_1|x')], stopReason: 'toolUse', timestamp: 2 }, tr]
    const out = runFrozen((m) => th.sanitizeToolCallIdsForCloudCodeAssist(m, 'strict'), input)
    assert.equal(out[1].toolCallId, 'call1x')
    assert.equal(out[1].self, tr)
  })
})

// ---- bad input ----

/**
 * A small transcript with `bad` at index 3, between a toolResult and an assistant, followed by
 * messages on which nearly every rule fires (so a bad entry that derails the codec shows up as
 * rules not applied after it).
 */
function around(bad) {
  return [
    { role: 'user', content: 'q', timestamp: 1 },
    { role: 'assistant', content: [toolCall('call_1')], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: [text('r')], isError: false, timestamp: 3 },
    bad,
    {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'r', thinkingSignature: RS }, text(''), text('reply', { thought_signature: 'msg_1' }), toolCall('call_2|fc_2', ' read '), toolCall('call_3', 'exec'), { type: 'toolCall', id: 'call_4', name: 'read' }],
      stopReason: 'toolUse',
      timestamp: 5,
    },
    { role: 'toolResult', toolCallId: 'call_2|fc_2', toolName: 'read', content: [text('r2'), { type: 'image', data: 'not base64!', mimeType: 'image/png' }], details: { d: 1 }, isError: false, timestamp: 6 },
    { role: 'user', content: 'next', timestamp: 7, provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } },
  ]
}

/** A well-formed message to compare a bad entry's neighbours against. */
const placeholder = () => ({ role: 'user', content: [text('placeholder')], timestamp: 4 })

/**
 * `fn(around(bad))` either passes `bad` through (it is in the output, the same object) or throws
 * a TypeError naming `path`. With `strict`, the bad entry must also leave every other message
 * exactly as a well-formed entry in its place would. With `strict = false` any array output
 * counts as handled. In every mode the entry is also tried last in the list.
 */
function passOrPathError(label, fn, bad, path = 'messages[3]', strict = true) {
  // Last in the list, the bad entry must not derail the call either (only a TypeError naming
  // its path is acceptable there).
  const last = attempt(fn, [...around(placeholder()), bad])
  if (!last.ok) {
    assert.ok(last.error instanceof TypeError && String(last.error.message).includes('messages[7]'), `${label} (last): threw ${last.error && last.error.constructor && last.error.constructor.name}: ${last.error && last.error.message}`)
  }
  const input = around(bad)
  const r = attempt(fn, input)
  if (!r.ok) {
    assert.ok(r.error instanceof TypeError, `${label}: threw ${r.error && r.error.constructor && r.error.constructor.name}: ${r.error && r.error.message}`)
    assert.ok(String(r.error.message).includes(path), `${label}: the error does not name ${path}: ${r.error.message}`)
    return
  }
  assert.ok(Array.isArray(r.out), `${label}: not an array`)
  if (!strict) return
  assert.ok(r.out.includes(bad), `${label}: the entry at ${path} was not passed through`)
  const good = placeholder()
  const reference = fn(around(good))
  assert.deepEqual(
    r.out.filter((m) => m !== bad),
    reference.filter((m) => m !== good),
    `${label}: the messages around the bad entry were not handled as they are around a good one`,
  )
}

describe('contracts: messages that are not an array', () => {
  const NOT_ARRAYS = [['a string', 'messages'], ['null', null], ['undefined', undefined], ['an object', { 0: { role: 'user' }, length: 1 }], ['a number', 42]]
  for (const [label, , fn] of OPS.filter(([, name]) => name !== 'limitHistoryTurns')) {
    test(label, () => {
      for (const [what, v] of NOT_ARRAYS) {
        assert.throws(() => fn(v), (e) => e instanceof TypeError && /messages/.test(e.message), `${what}`)
      }
    })
  }

  test('limitHistoryTurns', () => {
    for (const v of ['messages', null, { length: 1 }, 42]) {
      assert.throws(() => th.limitHistoryTurns(v, 3), (e) => e instanceof TypeError && /messages/.test(e.message))
    }
  })
})

describe('contracts: entries that are not messages', () => {
  for (const [label, , fn] of OPS) {
    test(`${label}: null, numbers and arrays among the messages are passed through or rejected by path`, () => {
      for (const bad of [null, 7, 'text', ['nested']]) passOrPathError(`${label} / ${JSON.stringify(bad)}`, fn, bad)
    })

    test(`${label}: unknown roles pass through`, () => {
      const bad = { role: 'system', x: { y: 1 }, content: [{ type: 'mystery', z: 1 }], timestamp: 4 }
      passOrPathError(label, fn, bad)
      const roleless = { content: [text('no role')], timestamp: 4 }
      passOrPathError(`${label} / no role`, fn, roleless, 'messages[3]', false)
    })

    test(`${label}: unknown block types and non-object blocks in a user message pass through`, () => {
      const bad = { role: 'user', content: [{ type: 'mystery', data: 1 }, 'string block', 42, null, [1]], timestamp: 4 }
      passOrPathError(label, fn, bad)
    })

    test(`${label}: unknown block types next to blocks a rule changes are kept by reference`, () => {
      const mystery = { type: 'mystery', data: { keep: true } }
      const bad = { role: 'assistant', content: [{ type: 'thinking', thinking: 'x', thinkingSignature: RS }, mystery, toolCall('call_2|x', ' read '), { type: 'toolCall', id: 'nope', name: 'read' }, null], stopReason: 'toolUse', timestamp: 4 }
      const r = attempt(fn, around(bad))
      if (!r.ok) {
        assert.ok(r.error instanceof TypeError && r.error.message.includes('messages[3]'), `${label}: ${r.error && r.error.message}`)
        return
      }
      const blocks = r.out.flatMap((m) => (m && Array.isArray(m.content) ? m.content : []))
      assert.ok(blocks.includes(mystery), `${label}: the unknown block was lost or copied`)
    })
  }
})

describe('contracts: content that is a string, null, an object or a number', () => {
  const CONTENTS = [['a string', 'plain'], ['null', null], ['an object', { type: 'text', text: 'obj' }], ['a number', 12]]
  for (const [label, , fn] of OPS) {
    for (const [what, content] of CONTENTS) {
      const opts = {}
      test(`${label}: user content as ${what}`, opts, () => {
        const bad = { role: 'user', content, timestamp: 4 }
        passOrPathError(label, fn, bad)
      })
      test(`${label}: assistant and toolResult content as ${what}`, opts, () => {
        const a = { role: 'assistant', content, stopReason: 'stop', usage: { ...CANON }, timestamp: 4 }
        // Canonicalisation and the image pass legitimately rewrite these; only a crash is wrong.
        passOrPathError(label, fn, a, 'messages[3]', false)
        const tr = { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content, isError: false, timestamp: 4 }
        passOrPathError(`${label} / toolResult`, fn, tr, 'messages[3]', false)
      })
    }
  }
})

describe('contracts: cycles', () => {
  for (const [label, , fn] of OPS) {
    test(`${label}: a self-reference in an unknown field passes through`, () => {
      const bad = { role: 'user', content: [text('loop')], timestamp: 4 }
      bad.self = bad
      bad.list = [bad, { back: bad }]
      passOrPathError(label, fn, bad)
    })

    test(`${label}: a cycle inside usage does not crash`, () => {
      const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 }
      usage.self = usage
      usage.cost = { total: 0, back: usage }
      const bad = { role: 'assistant', content: [text('u')], usage, stopReason: 'stop', timestamp: 4 }
      bad.usageOwner = bad
      passOrPathError(label, fn, bad, 'messages[3]', false)
    })
  }
})

describe('contracts: getters that throw', () => {
  const boom = () => {
    throw new Error('boom')
  }
  for (const [label, name, fn] of OPS) {
    test(`${label}: a throwing getter on a message names messages[3]`, () => {
      for (const key of ['role', 'content']) {
        const bad = { role: 'user', content: [text('x')], timestamp: 4 }
        Object.defineProperty(bad, key, { get: boom, enumerable: true })
        assert.throws(() => fn(around(bad)), (e) => e instanceof TypeError && e.message.includes('messages[3]'), key)
      }
    })

    test(`${label}: a revoked proxy as a message or a block names its path`, () => {
      const dead = Proxy.revocable({ role: 'user', content: 'x' }, {})
      dead.revoke()
      assert.throws(() => fn(around(dead.proxy)), (e) => e instanceof TypeError && e.message.includes('messages[3]'))
      const deadBlock = Proxy.revocable({ type: 'text', text: 'x' }, {})
      deadBlock.revoke()
      const bad = { role: 'user', content: [text('ok'), deadBlock.proxy], timestamp: 4 }
      assert.throws(() => fn(around(bad)), (e) => e instanceof TypeError && e.message.includes('messages[3].content[1]'))
    })

    test(`${label}: a throwing getter on a block names messages[3].content[1]`, () => {
      const block = { text: 'x' }
      Object.defineProperty(block, 'type', { get: boom, enumerable: true })
      const bad = { role: 'user', content: [text('ok'), block], timestamp: 4 }
      assert.throws(() => fn(around(bad)), (e) => e instanceof TypeError && e.message.includes('messages[3].content[1]'))
    })

    test(`${label}: a throwing getter in an unknown field of a message a rule changes names messages[3]`, () => {
      const bad = { role: 'toolResult', toolCallId: 'call_9|x', toolName: ' read ', content: [text('r')], details: { d: 1 }, isError: false, timestamp: 4 }
      Object.defineProperty(bad, 'secret', { get: boom, enumerable: true })
      const input = around(bad)
      input[1] = { role: 'assistant', content: [toolCall('call_1'), toolCall('call_9|x')], stopReason: 'toolUse', timestamp: 2 }
      const r = attempt(fn, input)
      if (!r.ok) assert.ok(r.error instanceof TypeError && r.error.message.includes('messages[3]'), `${label}: ${r.error.constructor.name}: ${r.error.message}`)
    })
  }
})

describe('contracts: lone surrogates in options', () => {
  // JSON.stringify writes them as `\udXXX` escapes, which no strict JSON reader accepts; the
  // wrappers send them as U+FFFD rather than failing the call.
  test('sanitizeSessionHistory: a lone surrogate in syntheticToolResultText becomes U+FFFD', () => {
    const messages = [{ role: 'assistant', content: [toolCall('call1')], stopReason: 'toolUse', timestamp: 1 }, { role: 'user', content: 'next', timestamp: 2 }]
    const out = th.sanitizeSessionHistory({ messages, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', syntheticToolResultText: 'missing \ud800 result' })
    assert.equal(out[1].role, 'toolResult')
    assert.equal(out[1].content[0].text, 'missing \ufffd result')
  })

  test('stripThoughtSignatures, cleanResponse and createResponseSanitizer accept options holding lone surrogates', () => {
    const content = [{ type: 'text', text: 'x', thought_signature: 'msg_1' }]
    assert.deepEqual(th.stripThoughtSignatures(content, { allowBase64Only: true, note: '\udc00' }), [{ type: 'text', text: 'x' }])
    assert.equal(th.cleanResponse('<think>a</think>hi', { model: 'qwen3\ud800' }).content, 'hi')
    assert.equal(typeof th.createResponseSanitizer({ fallback: 'no \ud800 reply' }).sanitize, 'function')
  })
})

describe('contracts: size', () => {
  const BIG = 'x'.repeat(50 * 1024 * 1024)

  for (const [label, , fn] of OPS) {
    test(`${label}: a 50 MB text passes through`, () => {
      const bad = { role: 'user', content: [text(BIG)], timestamp: 4 }
      passOrPathError(label, fn, bad)
    })
  }

  test('a 50 MB inter-session text is annotated without losing a byte', () => {
    const out = th.annotateInterSessionUserMessages([{ role: 'user', content: BIG, provenance: { kind: 'inter_session' } }])
    assert.equal(out[0].content.length, BIG.length + '[Inter-session message]\n'.length)
    assert.ok(out[0].content.endsWith('xxxx'))
  })

  const child = fileURLToPath(new URL('./fixtures/stress-child.mjs', import.meta.url))
  const runs = new Map()
  /** Runs the stress child once per case: {status, signal, stderr, lines}. */
  function runChild(name) {
    if (!runs.has(name)) {
      const r = spawnSync(process.execPath, [child, name], { encoding: 'utf8', timeout: 50_000, maxBuffer: 1 << 24 })
      runs.set(name, { ...r, lines: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)) })
    }
    return runs.get(name)
  }

  for (const [name, changes] of [['deep-unknown-field', false], ['deep-tool-arguments', true]]) {
    test(`10,000-deep nesting (${name}) never crashes the process`, () => {
      const r = runChild(name)
      const { lines } = r
      assert.equal(r.status, 0, `child exited with ${r.status} / ${r.signal} after ${lines.length} ops (last: ${lines.at(-1)?.op}); stderr: ${r.stderr.slice(0, 500)}`)
      assert.equal(lines.length, OPS.length)
      for (const l of lines) {
        if (l.outcome === 'type-error') assert.ok(/messages\[3\]/.test(l.message), `${l.op}: ${l.message}`)
        else if (changes) assert.ok(['pass-through', 'changed', 'not-redacted'].includes(l.outcome), `${l.op}: ${l.outcome} ${l.message ?? ''}`)
        else assert.equal(l.outcome, 'pass-through', `${l.op}: ${l.message ?? ''}`)
      }
    })
  }

  test('sessions_spawn attachments are redacted even when other arguments nest 10,000 deep', () => {
    const r = runChild('deep-tool-arguments')
    assert.equal(r.status, 0)
    const leaked = r.lines.filter((l) => l.outcome === 'not-redacted').map((l) => l.op)
    assert.deepEqual(leaked, [])
  })
})
