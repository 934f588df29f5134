// The incremental sanitizeSessionHistory (a sessionId, or createTranscriptSanitizer) is the full
// pass: random sessions grow step by step, and after every step the incremental result is
// compared with a fresh full pass over the same messages — deep-equal, the very same objects
// where the full pass returns the caller's, and the same warnings and session entries. The
// generator draws every rule whose effect crosses messages: late results moved up to their
// call, results for old calls (duplicates), raw ids that collide once sanitised, unanswered
// calls, errored and aborted turns with results, compactions (by position and timestamp),
// Google's bootstrap, malformed assistant content, OpenAI reasoning and function-call ids; in
// 2026.9.6 mode also thinking with and without signatures (the latest turn keeps it, signatures
// older than the latest compaction go), reasoning dropped outside the current tool turn, signed
// turns whose ids the id rewrite keeps, Kimi ids, silent replies, results found through another id
// field, and model switches in the session entries.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { th, rng } from './fixtures/helpers.mjs'

// The session store behind `sessionId` (js/transcript-session.js), read only to count which path
// each call took: a row that never takes the path it is about proves nothing.
const sessions = createRequire(import.meta.url)('../js/transcript-session.js')

// Every row names its OpenClaw release: the process default is not what these cases are about.
const V3 = { openclawVersion: '2026.3.23' }
const V9 = { openclawVersion: '2026.9.6' }
const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', ...V3 },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', ...V3 },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2', ...V3 },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large', ...V3 },
  // 2026.9.6 mode, with its own cuts (src/transcript/v2026_9/incremental.rs).
  'anthropic 2026.9.6': { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', ...V9 },
  'google 2026.9.6': { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', ...V9 },
  'openai 2026.9.6': { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2', ...V9 },
  'mistral 2026.9.6': { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large', ...V9 },
  // Thinking kept and replayed as signed (no dropThinkingBlocks): signed turns keep their call ids.
  'anthropic opus 2026.9.6': { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6', ...V9 },
  // dropReasoningFromHistory: reasoning stays only in the current tool turn.
  'ollama 2026.9.6': { provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b', ...V9 },
  // Every model snapshot added from outside names gpt-5.2: a switch, after which the pass drops
  // the reasoning of the turns before it and reduces their text signatures (texts carry one here).
  'openai 2026.9.6, model switched': { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5', ...V9 },
}

/**
 * A generator of plausible (and implausible) messages for one session; with `loop`, an
 * autonomous agent's: long runs of calls and their results under one user turn (`'short'`: a user
 * turn every seven calls or so).
 */
function messages(seed, loop = false) {
  const r = rng(seed)
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  let clock = 1000
  let k = 0
  const calls = []
  const ts = () => (r() < 0.1 ? clock - Math.floor(r() * 50) : (clock += 1 + Math.floor(r() * 5)))
  // Ids that collide once sanitised ('x:1', 'x|1', 'x1' all become 'x1'), reused ids, fresh ones.
  const id = () => (r() < 0.08 ? pick(['x:1', 'x|1', 'x1', 'call_a|fc_1', 'call_a', 'functions.read:0']) : r() < 0.03 && calls.length ? pick(calls) : `call_${++k}`)
  const usage = () =>
    r() < 0.5
      ? { input: 5, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 8, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
      : { input_tokens: 7, output_tokens: 2, cacheWrite1h: 4 }
  // Signed, unsigned, an OpenAI reasoning item, or redacted.
  const thinking = () => {
    const x = r()
    if (x < 0.1) return { type: 'redacted_thinking', data: r() < 0.7 ? 'ZW5jcnlwdGVk' : '' }
    return { type: 'thinking', thinking: '想一想', ...(x < 0.45 ? { thinkingSignature: 'sig' } : x < 0.75 ? { thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) } : {}) }
  }
  const call = (stopReason) => {
    const n = 1 + Math.floor(r() * 2)
    const content = []
    if (r() < 0.3) content.push(thinking())
    for (let i = 0; i < n; i++) {
      const c = id()
      calls.push(c)
      content.push(r() < 0.05 ? { type: 'toolCall', id: c, arguments: {} } : { type: 'toolCall', id: c, name: pick(['read', 'exec', ' read ']), arguments: { path: '文件.txt' } })
    }
    return { role: 'assistant', content, stopReason, usage: usage(), timestamp: ts() }
  }
  const kinds = [
    () => ({ role: 'user', content: pick(['继续', 'go on', '']), timestamp: ts() }),
    () => call('toolUse'),
    () => call('toolUse'),
    () => ({ role: 'toolResult', toolCallId: calls.length && r() < 0.85 ? pick(calls.slice(-3)) : id(), toolName: pick(['read', '', undefined]), content: [{ type: 'text', text: '结果' }], timestamp: ts() }),
    () => ({ role: 'toolResult', toolCallId: calls.length ? calls[calls.length - 1] : 'x1', toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: ts() }),
    () => ({ role: 'assistant', content: [...(r() < 0.3 ? [thinking()] : []), { type: 'text', text: r() < 0.05 ? 'NO_REPLY' : '好的，完成了。' }], stopReason: 'stop', usage: usage(), timestamp: ts() }),
    // A result naming its call through another id field, or through none.
    () => r() < 0.3 && ({ role: 'toolResult', ...(r() < 0.5 && calls.length ? { tool_call_id: calls[calls.length - 1] } : {}), toolName: 'read', content: [{ type: 'text', text: '别的字段' }], timestamp: ts() }),
    () => (r() < 0.3 ? call(pick(['error', 'aborted'])) : call('toolUse')),
    () => r() < 0.4 && ({ role: 'compactionSummary', summary: '摘要', tokensBefore: 100, timestamp: r() < 0.5 ? ts() : clock + 10 }),
    () => ({ role: 'assistant', content: pick(['纯文本', null, 7]), stopReason: 'stop', timestamp: ts() }),
    () => ({ role: 'assistant', content: [{ type: 'thinking', thinking: 'r', thinkingSignature: JSON.stringify({ id: 'rs_2', type: 'reasoning' }) }], stopReason: 'stop', timestamp: ts() }),
    () => ({ role: 'user', content: [{ type: 'text', text: '来自另一个会话' }], provenance: { kind: 'inter_session', sourceSessionKey: 's2', sourceTool: 'send' }, timestamp: ts() }),
    // Attachments whose inline content 2026.3.23 redacts: read from the objects, not the skeleton
    // (odd seeds only: a session holding one never continues by content).
    () => seed % 2 === 1 && r() < 0.3 && { role: 'assistant', content: [{ type: 'toolCall', id: id(), name: 'sessions_spawn', arguments: { task: '总结', attachments: [{ name: 'a.txt', content: '秘密' }, { name: 'b.txt' }] } }], stopReason: 'toolUse', timestamp: ts() },
  ]
  const any = () => {
    for (;;) {
      const m = pick(kinds)()
      if (m) return m
    }
  }
  if (!loop) return any
  // A user turn, then calls (sometimes errored or aborted), each followed by its results in
  // order, one now and then left out (answered late by a stray result, or never); rarely a user
  // turn, an answer or anything.
  const queue = [{ role: 'user', content: '把这些文件都处理一遍', timestamp: ts() }]
  return () => {
    if (queue.length) return queue.shift()
    const x = r()
    if (x < (loop === 'short' ? 0.15 : 0.03)) return kinds[0]()
    if (x < 0.06) return kinds[5]()
    if (x < 0.1) return any()
    const m = call(r() < 0.06 ? pick(['error', 'aborted']) : 'toolUse')
    if (r() < 0.5 && !m.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) m.content.unshift(thinking())
    for (const b of m.content) {
      if (b.type === 'toolCall' && r() < 0.93) queue.push({ role: 'toolResult', toolCallId: b.id, toolName: b.name, content: [{ type: 'text', text: '循环结果' }], timestamp: ts() })
    }
    return m
  }
}

const TOOLS = ['read', 'exec', 'sessions_spawn']

/**
 * An edit that leaves a message's skeleton as it was: a tool result's text of the same length, or
 * an attachment's inline content gone (the skeleton sends neither). `null` when `m` has none.
 */
function sameSkeleton(m) {
  if (m.role === 'toolResult' && Array.isArray(m.content) && m.content[0]?.type === 'text') {
    return { ...m, content: [{ ...m.content[0], text: m.content[0].text === '结果' ? '成果' : '换了' }] }
  }
  const call = Array.isArray(m.content) ? m.content.find((b) => b.name === 'sessions_spawn') : undefined
  if (call === undefined) return null
  const attachments = call.arguments.attachments.map(({ content, ...rest }) => rest)
  return { ...m, content: m.content.map((b) => (b === call ? { ...b, arguments: { ...b.arguments, attachments } } : b)) }
}

/**
 * Every step's incremental result against a fresh full pass. `via`: 'sessionId', 'sanitizer', or
 * 'rebuilt' (a sessionId, and every call's messages new objects, as OpenClaw 2026.9.6's runner
 * builds them from its store: the content-keyed path). Returns how the session's calls went.
 */
function session(policyName, seed, steps, via, loop = false) {
  const r = rng(seed * 7 + 1)
  const next = messages(seed, loop)
  const policy = POLICIES[policyName]
  const switched = policyName.endsWith('model switched')
  const sessionId = `s-${policyName}-${seed}`
  // Each side its own session, whose entries (model snapshot, Google's bootstrap marker) must agree.
  // As in pi's session manager, the messages are entries too, and getEntries() sometimes gives a
  // fresh array.
  const manager = () => {
    const entries = []
    return { entries, getEntries: () => (r() < 0.5 ? entries : entries.slice()), appendCustomEntry: (customType, data) => entries.push({ type: 'custom', customType, data }) }
  }
  const fullSession = manager()
  const incSession = manager()
  // The same entry added to both sides, or the same entry of both replaced, from outside the pass.
  const both = (f) => [fullSession, incSession].forEach((m) => f(m.entries))
  const outside = [
    (es) => es.push({ type: 'custom', customType: 'model-snapshot', data: { timestamp: 1, provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' } }),
    (es) => es.push({ type: 'custom', customType: 'model-snapshot', data: null }),
    (es) => es.push({ type: 'custom', customType: 'google-turn-ordering-bootstrap', data: { timestamp: 1 } }),
    (es, x) => es.length && es.splice(Math.floor(x * es.length), 1),
  ]
  const shown = (m) => m.entries.filter((e) => e.type === 'custom' && e.data).map((e) => [e.customType, { ...e.data, timestamp: typeof e.data.timestamp }])
  const sanitizer = th.createTranscriptSanitizer({ ...policy, allowedToolNames: TOOLS, sessionManager: incSession, warn: (w) => incWarnings.push(w) })
  let incWarnings = []
  let history = []
  const rerun = []
  // Google sessions often start with the assistant (a compacted or limited history).
  if (policyName.startsWith('google') && r() < 0.5) history.push({ role: 'assistant', content: [{ type: 'text', text: '你好' }], stopReason: 'stop' })
  for (let step = 0; step < steps; step++) {
    const add = 1 + Math.floor(r() * 5)
    for (let i = 0; i < add; i++) {
      const m = switched ? withTextSignatures(next()) : next()
      history.push(m)
      both((es) => es.push({ type: 'message', message: m }))
    }
    if (r() < 0.1) {
      const edit = outside[Math.floor(r() * outside.length)]
      const x = r()
      both((es) => edit(es, x))
    }
    // Sometimes the agent rewrites its history (a replaced message): the full pass must run.
    if (r() < 0.05 && history.length > 2) {
      const j = Math.floor(r() * (history.length - 1))
      history[j] = { ...history[j] }
    }
    // Rebuilt histories: sometimes an earlier message is edited without changing its skeleton
    // (a sessions_spawn call's attachments first: the edit only Rust's read guard can see).
    if (via === 'rebuilt' && r() < 0.2) {
      const spawn = history.findIndex((m) => Array.isArray(m.content) && m.content.some((b) => b.name === 'sessions_spawn' && 'content' in b.arguments.attachments[0]))
      const j = spawn >= 0 && r() < 0.5 ? spawn : Math.floor(r() * history.length)
      history[j] = sameSkeleton(history[j]) ?? history[j]
    }
    // Sometimes the same array grown in place, usually a fresh one holding the same objects;
    // rebuilt: new objects every call.
    const input = via === 'rebuilt' ? structuredClone(history) : r() < 0.3 ? history : history.slice()
    const fullWarnings = []
    const full = th.sanitizeSessionHistory({ messages: input, ...policy, allowedToolNames: TOOLS, sessionManager: fullSession, warn: (w) => fullWarnings.push(w) })
    incWarnings = []
    // How many messages the call re-runs when it continues (the history after the cut).
    const cut = via === 'sanitizer' ? 0 : (sessions.peek(sessionId)?.seen.length ?? 0)
    const hitsBefore = via === 'sanitizer' ? 0 : (sessions.peek(sessionId)?.hits.full ?? 0)
    const got =
      via !== 'sanitizer'
        ? th.sanitizeSessionHistory({ messages: input, ...policy, sessionId, allowedToolNames: TOOLS, sessionManager: incSession, warn: (w) => incWarnings.push(w) })
        : sanitizer.sanitize(input)
    const where = `${policyName} seed ${seed} step ${step} (${history.length} messages)`
    assert.deepEqual(got, full, where)
    const own = new Set(input)
    for (let i = 0; i < full.length; i++) {
      if (own.has(full[i]) || own.has(got[i])) assert.ok(got[i] === full[i], `${where}: output ${i} is not the caller's object`)
    }
    if (via !== 'sanitizer') assert.deepEqual(incWarnings, fullWarnings.map((w) => w.replace('session=undefined', `session=${sessionId}`).replace('sessionId=undefined', `sessionId=${sessionId}`)), where)
    else assert.deepEqual(incWarnings, fullWarnings, where)
    assert.deepEqual(shown(incSession), shown(fullSession), `${where}: session entries`)
    assert.notEqual(got, input)
    if (via !== 'sanitizer' && sessions.peek(sessionId).hits.full === hitsBefore) rerun.push(history.length - cut)
  }
  return via === 'sanitizer' ? null : { ...sessions.peek(sessionId).hits, rerun }
}

/**
 * `m` with a Responses text signature on each text block (a phase on every other one), and a
 * signed text after each thinking block.
 */
function withTextSignatures(m) {
  if (m.role !== 'assistant' || !Array.isArray(m.content)) return m
  const sig = (j) => (j % 2 ? 'msg_plain' : JSON.stringify({ v: 1, id: `msg_${j}`, phase: 'final_answer' }))
  const content = m.content.flatMap((b, j) => {
    if (b && b.type === 'text') return [{ ...b, textSignature: sig(j) }]
    return b && b.type === 'thinking' ? [b, { type: 'text', text: '我先看看', textSignature: sig(j) }] : [b]
  })
  return { ...m, content }
}


for (const name of Object.keys(POLICIES)) {
  const v96 = name.includes('2026.9.6')
  const seeds = v96 ? 6 : 12
  test(`incremental = full pass, random sessions (${name})`, () => {
    const hits = { identity: 0, content: 0, full: 0 }
    for (let seed = 1; seed <= seeds; seed++) {
      const h = session(name, seed, 30, seed % 2 ? 'sessionId' : 'sanitizer')
      if (h !== null) for (const k in hits) hits[k] += h[k]
    }
    // A row that never continues proves nothing about the incremental pass.
    assert.ok(hits.identity * 5 >= hits.identity + hits.full, `continued on a fifth of the calls or more: ${JSON.stringify(hits)}`)
  })
  test(`incremental = full pass, random sessions rebuilt every call (${name})`, () => {
    const hits = { identity: 0, content: 0, full: 0 }
    for (let seed = 1; seed <= Math.ceil(seeds / 3); seed++) {
      const h = session(name, 100 + seed, 30, 'rebuilt')
      for (const k in hits) hits[k] += h[k]
    }
    assert.equal(hits.identity, 0, 'new objects every call')
    if (!v96) assert.ok(hits.content * 10 >= hits.content + hits.full, `the content-keyed path taken on a tenth of the calls or more: ${JSON.stringify(hits)}`)
  })
  if (!v96) continue
  test(`incremental = full pass, long tool loops (${name})`, () => {
    // An autonomous agent: calls and results under one user turn (errored, aborted, unanswered
    // and late ones among them); seeds 5 and 6 short loops, whose first turn's reasoning the next
    // user turn drops under dropReasoningFromHistory. A continued call re-runs what follows the
    // cut: in a loop, the cut follows the latest call, so that stays a few messages while the
    // history grows.
    const rerun = []
    let full = 0
    for (let seed = 1; seed <= 6; seed++) {
      const h = session(name, 200 + seed, seed > 4 ? 30 : 40, seed % 2 ? 'sessionId' : 'rebuilt', seed > 4 ? 'short' : true)
      rerun.push(...h.rerun)
      full += h.full
    }
    rerun.sort((a, b) => a - b)
    const median = rerun[rerun.length >> 1]
    assert.ok(rerun.length >= 2 * full, `continued on two thirds of the calls or more: ${rerun.length} continued, ${full} full`)
    assert.ok(median <= 8, `a continued call re-runs ${median} messages (median)`)
  })
}

test('the prefix is reused: a long session answers appended turns without redoing it', () => {
  // A behaviour check, not a timing: the remembered cut advances with the session.
  const s = th.createTranscriptSanitizer(POLICIES.anthropic)
  const history = []
  for (let t = 0; t < 50; t++) {
    history.push({ role: 'user', content: `第${t}轮`, timestamp: t * 10 })
    history.push({ role: 'assistant', content: [{ type: 'toolCall', id: `c${t}`, name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: t * 10 + 1 })
    history.push({ role: 'toolResult', toolCallId: `c${t}`, toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: t * 10 + 2 })
    history.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop', timestamp: t * 10 + 3 })
    const out = s.sanitize(history.slice())
    assert.equal(out.length, history.length)
  }
  const stats = th.configureTranscriptSessions({})
  assert.equal(typeof stats.maxSessions, 'number')
})

test('the LRU keeps at most maxSessions sessions', () => {
  const before = th.configureTranscriptSessions({})
  try {
    th.configureTranscriptSessions({ maxSessions: 2 })
    for (const id of ['a', 'b', 'c', 'd']) th.sanitizeSessionHistory({ messages: [{ role: 'user', content: 'hi' }], sessionId: id })
    assert.equal(th.configureTranscriptSessions({}).sessions, 2)
    assert.throws(() => th.configureTranscriptSessions({ maxSessions: '3' }), /options\.maxSessions: expected a number/)
  } finally {
    th.configureTranscriptSessions({ maxSessions: before.maxSessions })
  }
})

test('the same sessionId with other options, or a rewritten history, gets the full pass for them', () => {
  const history = [
    { role: 'user', content: '读一下', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1|fc_1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call_1|fc_1', toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: '好' }], stopReason: 'stop', timestamp: 4 },
  ]
  const sessionId = 'options-change'
  th.sanitizeSessionHistory({ messages: history, ...POLICIES.anthropic, sessionId })
  const more = [...history, { role: 'user', content: '再来', timestamp: 5 }]
  // OpenAI Responses replays the id as `call_1` (no reasoning item before it); Anthropic's pass wrote `call1fc1`.
  const openai = th.sanitizeSessionHistory({ messages: more, ...POLICIES.openai, sessionId })
  assert.deepEqual(openai, th.sanitizeSessionHistory({ messages: more, ...POLICIES.openai }))
  assert.equal(openai[1].content[0].id, 'call_1')
  const rewritten = [{ ...history[0], content: '改过了' }, ...more.slice(1)]
  assert.deepEqual(th.sanitizeSessionHistory({ messages: rewritten, ...POLICIES.openai, sessionId }), th.sanitizeSessionHistory({ messages: rewritten, ...POLICIES.openai }))
})

test('session entries: a read that throws leaves nothing half-read behind', () => {
  const snapshot = (modelId) => ({ type: 'custom', customType: 'model-snapshot', data: { timestamp: 1, provider: 'anthropic', modelApi: 'anthropic-messages', modelId } })
  const entries = [snapshot('claude-sonnet-4-5'), { type: 'message' }]
  let bad = false
  const broken = {
    get type() {
      throw new Error('会话条目读不出来')
    },
  }
  const appended = []
  // The failing read meets another model's snapshot, then the entry that throws; the next read
  // has neither.
  const sessionManager = { getEntries: () => (bad ? [...entries, snapshot('another-model'), broken] : entries), appendCustomEntry: (customType, data) => appended.push([customType, data.modelId]) }
  const s = th.createTranscriptSanitizer({ ...POLICIES.anthropic, sessionManager })
  const history = [{ role: 'user', content: '你好', timestamp: 1 }]
  s.sanitize(history)
  bad = true
  assert.throws(() => s.sanitize(history), /会话条目读不出来/)
  bad = false
  const full = th.sanitizeSessionHistory({ messages: history, ...POLICIES.anthropic, sessionManager: { getEntries: () => entries } })
  assert.deepEqual(s.sanitize(history), full)
  assert.deepEqual(appended, [], 'the last snapshot read names this model')
})

test('OpenClaw 2026.9.6 mode: an agent\'s turns continue from the latest call', () => {
  // The cut (the session's remembered input) sits at the latest assistant with calls, so each
  // call re-runs only the last turn; a session in this mode threw a TypeError on its first call
  // once (the native side answered "fall back" even to the full pass), then ran in full on every turn.
  for (const name of ['anthropic 2026.9.6', 'anthropic opus 2026.9.6', 'ollama 2026.9.6', 'openai 2026.9.6']) {
    const o = POLICIES[name]
    const sessionId = `v96-${name}`
    const sanitizer = th.createTranscriptSanitizer(o)
    const history = []
    for (let t = 0; t < 6; t++) {
      const thought = { type: 'thinking', thinking: '先想一想', thinkingSignature: t % 2 ? 'c2lnbmVk' : JSON.stringify({ id: `rs_${t}`, type: 'reasoning' }) }
      history.push({ role: 'user', content: `第${t}轮`, timestamp: t * 10 })
      history.push({ role: 'assistant', content: [thought, { type: 'toolCall', id: `call_${t}|fc_${t}`, name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: t * 10 + 1 })
      history.push({ role: 'toolResult', toolCallId: `call_${t}|fc_${t}`, toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: t * 10 + 2 })
      history.push({ role: 'assistant', content: [{ ...thought }, { type: 'text', text: '读完了' }], stopReason: 'stop', timestamp: t * 10 + 3 })
      const full = th.sanitizeSessionHistory({ messages: history, ...o })
      assert.deepEqual(th.sanitizeSessionHistory({ messages: history, ...o, sessionId }), full, `${name}, turn ${t}, sessionId`)
      assert.deepEqual(sanitizer.sanitize(history), full, `${name}, turn ${t}, sanitizer`)
      assert.equal(sessions.peek(sessionId).seen.length, 4 * t + 1, `${name}, turn ${t}: the cut is at the latest call`)
    }
    // Only the first call runs in full.
    assert.deepEqual(sessions.peek(sessionId).hits, { identity: 5, content: 0, full: 1 }, name)
  }
})

test('OpenClaw 2026.9.6 mode: a long tool loop under one user turn continues from its latest call', () => {
  // An autonomous agent: one user turn, then call after call. The cut follows the latest call,
  // so a call re-runs two messages, not the loop (which each call re-ran whole before).
  const thoughts = [{ type: 'thinking', thinking: '签名的', thinkingSignature: 'c2lnbmVk' }, { type: 'thinking', thinking: '未签名' }, { type: 'thinking', thinking: '推理', thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) }, null]
  for (const name of ['anthropic 2026.9.6', 'anthropic opus 2026.9.6', 'ollama 2026.9.6', 'openai 2026.9.6', 'google 2026.9.6', 'mistral 2026.9.6']) {
    const o = POLICIES[name]
    const sessionId = `v96-loop-${name}`
    // Ollama's first tool turn keeps its reasoning while it is the current one: here it has none.
    const history = [{ role: 'user', content: '把这些文件都读一遍', timestamp: 0 }, ...toolTurn(0, null)]
    for (let t = 1; t <= 40; t++) {
      history.push(...toolTurn(t, thoughts[t % thoughts.length]))
      const got = th.sanitizeSessionHistory({ messages: history, ...o, sessionId })
      assert.deepEqual(got, th.sanitizeSessionHistory({ messages: history, ...o }), `${name}, turn ${t}`)
      assert.equal(sessions.peek(sessionId).seen.length, history.length - 2, `${name}, turn ${t}: the cut is at the latest call`)
    }
    // The answer and the next user turn continue too.
    history.push({ role: 'assistant', content: [{ type: 'text', text: '都读完了' }], stopReason: 'stop', timestamp: 1000 }, { role: 'user', content: '再读一个', timestamp: 1001 }, ...toolTurn(200, thoughts[1]))
    assert.deepEqual(th.sanitizeSessionHistory({ messages: history, ...o, sessionId }), th.sanitizeSessionHistory({ messages: history, ...o }), name)
    assert.deepEqual(sessions.peek(sessionId).hits, { identity: 40, content: 0, full: 1 }, name)
  }
})

test('OpenClaw 2026.9.6 mode: a short loop whose first tool turn reasons continues from its latest call (dropReasoningFromHistory)', () => {
  // That turn keeps its reasoning while it is the current tool turn, until a user turn comes. The
  // cut follows the latest call all the same; the user turn runs again from the cut before that
  // turn (once), not the full pass. The same objects every call, or new ones (content-keyed).
  for (const name of ['ollama 2026.9.6']) {
    for (const rebuilt of [false, true]) {
      const o = POLICIES[name]
      const sessionId = `v96-short-loop-${name}-${rebuilt}`
      const thought = { type: 'thinking', thinking: '先想一想' }
      const history = [{ role: 'user', content: '查一下这三个文件', timestamp: 0 }, ...toolTurn(0, thought)]
      const call = (what) => {
        const got = th.sanitizeSessionHistory({ messages: rebuilt ? structuredClone(history) : history, ...o, sessionId })
        assert.deepEqual(got, th.sanitizeSessionHistory({ messages: history, ...o }), `${name}, ${what}`)
        return sessions.peek(sessionId)
      }
      // New objects: the second call runs in full too (the session keeps skeletons from then on).
      const calls = rebuilt ? 2 : 1
      for (let i = 0; i < calls; i++) call('first calls')
      for (let t = 1; t <= 4; t++) {
        history.push(...toolTurn(t, t % 2 ? null : thought))
        assert.equal(call(`turn ${t}`).seen.length, history.length - 2, `${name}, turn ${t}: the cut is at the latest call`)
      }
      history.push({ role: 'user', content: '再查一个', timestamp: 100 })
      const s = call('the user turn')
      assert.equal(s.earlier, 1, `${name}: the user turn ran from the earlier cut`)
      assert.equal(s.seen.length, history.length - 3, `${name}: the cut is at the loop's last call`)
      for (let t = 11; t <= 13; t++) history.push(...toolTurn(t, thought))
      call('after the user turn')
      assert.equal(s.seen.length, history.length - 2, name)
      assert.deepEqual(s.hits, { identity: rebuilt ? 0 : 6, content: rebuilt ? 6 : 0, full: calls }, name)
    }
  }
})

test('OpenClaw 2026.9.6 mode: what reaches back into the prefix takes the full pass', () => {
  const o = { ...POLICIES['anthropic 2026.9.6'], allowedToolNames: TOOLS }
  const sessionId = 'v96-reach-back'
  const turn = (t) => [
    { role: 'user', content: `第${t}轮`, timestamp: t * 10 },
    { role: 'assistant', content: [{ type: 'thinking', thinking: '想', thinkingSignature: 'c2ln' }, { type: 'toolCall', id: `c${t}`, name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: t * 10 + 1 },
    { role: 'toolResult', toolCallId: `c${t}`, toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: t * 10 + 2 },
    { role: 'assistant', content: [{ type: 'text', text: '好' }], stopReason: 'stop', timestamp: t * 10 + 3 },
  ]
  const history = [...turn(0), ...turn(1)]
  const step = (more, how) => {
    history.push(...more)
    const before = { ...sessions.peek(sessionId)?.hits }
    const got = th.sanitizeSessionHistory({ messages: history, ...o, sessionId })
    assert.deepEqual(got, th.sanitizeSessionHistory({ messages: history, ...o }), how)
    const after = sessions.peek(sessionId).hits
    return after.full > (before.full ?? 0) ? 'full' : 'continued'
  }
  assert.equal(step([], 'first call'), 'full')
  assert.equal(step(turn(2), 'a turn'), 'continued')
  // A turn whose call has no result yet, and a user turn after it: the cut is at that user turn.
  const open = [
    { role: 'user', content: '第3轮', timestamp: 30 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'c3', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 31 },
    { role: 'user', content: '还在吗', timestamp: 32 },
    { role: 'assistant', content: [{ type: 'text', text: '在' }], stopReason: 'stop', timestamp: 33 },
  ]
  assert.equal(step(open, 'an unanswered call'), 'continued')
  assert.equal(sessions.peek(sessionId).seen.length, 14)
  // A late result without an id: it belongs to that call's frame, which runs on past the cut, and
  // takes its only call's id there (moved up before the cut).
  assert.equal(step([{ role: 'toolResult', toolName: 'read', content: [{ type: 'text', text: '迟到' }], timestamp: 34 }, turn(4)[3]], 'a late result'), 'full')
  assert.equal(history.at(-2).toolCallId, undefined)
  assert.deepEqual(th.sanitizeSessionHistory({ messages: history, ...o }).slice(13, 16).map((m) => [m.role, m.toolCallId]), [['assistant', undefined], ['toolResult', 'c3'], ['user', undefined]])
  // A second result for a call before the cut.
  assert.equal(step([{ role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: '重复' }], timestamp: 99 }], 'a duplicate result'), 'full')
  // A compaction stamped after every turn: every earlier signature goes.
  assert.equal(step([{ role: 'compactionSummary', summary: '摘要', tokensBefore: 10, timestamp: 1000 }, ...turn(5)], 'a compaction'), 'full')
  // After it, turns stamped before the compaction lose their signatures too (carried into the suffix).
  const six = turn(6)
  six[3] = { ...six[3], content: [{ type: 'thinking', thinking: '收尾', thinkingSignature: 'c2ln' }, ...six[3].content] }
  assert.equal(step(six, 'a turn after the compaction'), 'continued')
  assert.deepEqual(th.sanitizeSessionHistory({ messages: history, ...o, sessionId }).at(-1).content[0], { type: 'thinking', thinking: '收尾' }, 'the latest turn keeps its thinking, not its signature')
  // An id the prefix used, in a new turn.
  assert.equal(step([{ role: 'user', content: '再读', timestamp: 70 }, { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 71 }], 'a reused id'), 'full')
})

test('OpenClaw 2026.9.6 mode: Google\'s bootstrap turn, decided by the first pass, is recorded again when its marker is gone', () => {
  const o = POLICIES['google 2026.9.6']
  const entries = []
  const sessionManager = { getEntries: () => entries, appendCustomEntry: (customType, data) => entries.push({ type: 'custom', customType, data }) }
  const history = [{ role: 'assistant', content: [{ type: 'text', text: '接着上次说' }], stopReason: 'stop', timestamp: 1 }]
  for (let t = 0; t < 4; t++) {
    history.push({ role: 'user', content: `第${t}轮`, timestamp: 10 * t + 2 }, { role: 'assistant', content: [{ type: 'text', text: '好' }], stopReason: 'stop', timestamp: 10 * t + 3 })
    // The marker removed from outside before the last call: the pass must record it again.
    if (t === 3) entries.splice(entries.findIndex((e) => e.customType === 'google-turn-ordering-bootstrap'), 1)
    const before = entries.length
    const got = th.sanitizeSessionHistory({ messages: history, ...o, sessionId: 'v96-google', sessionManager })
    assert.equal(got[0].content, '(session bootstrap)')
    const markers = entries.slice(before).filter((e) => e.customType === 'google-turn-ordering-bootstrap').length
    assert.equal(markers, t === 0 || t === 3 ? 1 : 0, `turn ${t}`)
  }
  assert.deepEqual(sessions.peek('v96-google').hits, { identity: 3, content: 0, full: 1 })
})

test('content-keyed: a history rebuilt as new objects reuses the prefix only when its skeleton says all', () => {
  const o = { ...POLICIES.anthropic, allowedToolNames: TOOLS }
  const history = [
    { role: 'user', content: '读一下', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1|fc_1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call_1|fc_1', toolName: 'read', content: [{ type: 'text', text: '结果' }], timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: '好' }], stopReason: 'stop', timestamp: 4 },
  ]
  const turn = (messages, sessionId) => {
    const got = th.sanitizeSessionHistory({ messages, ...o, sessionId })
    const full = th.sanitizeSessionHistory({ messages, ...o })
    assert.deepEqual(got, full)
    return got
  }
  turn(history, 'rebuilt-1')
  // The first call with new objects takes the full pass (from then on the session keeps skeletons).
  turn(structuredClone(history), 'rebuilt-1')
  // The same skeleton (a result text of the same length): the prefix's plan is replayed on the
  // new objects, the call's id rewritten again, the untouched result the caller's new object.
  const again = [...structuredClone(history), { role: 'user', content: '再来', timestamp: 5 }]
  again[2].content[0].text = '成果'
  const got = turn(again, 'rebuilt-1')
  assert.equal(got[1].content[0].id, 'call1fc1')
  assert.equal(got[2].content, again[2].content, 'the new result text')
  assert.equal(got[0], again[0])
  assert.deepEqual(sessions.peek('rebuilt-1').hits, { identity: 0, content: 1, full: 2 })
  // Another skeleton (another id): the full pass.
  const other = structuredClone(again)
  other[1].content[0].id = 'call_2|fc_2'
  other[2].toolCallId = 'call_2|fc_2'
  assert.equal(turn(other, 'rebuilt-1')[1].content[0].id, 'call2fc2')
  assert.deepEqual(sessions.peek('rebuilt-1').hits, { identity: 0, content: 1, full: 3 })

  // A prefix whose output depends on more than its skeleton (attachments' inline content is read
  // from the objects) is never reused by content: here the content is gone in the rebuilt copy.
  const spawn = [
    { role: 'user', content: '派一个子任务', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'sessions_spawn', arguments: { attachments: [{ name: 'a.txt', content: '秘密' }] } }], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'c1', toolName: 'sessions_spawn', content: [{ type: 'text', text: 'ok' }], timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: '好' }], stopReason: 'stop', timestamp: 4 },
  ]
  assert.notDeepEqual(turn(spawn, 'rebuilt-2')[1].content[0].arguments.attachments[0], spawn[1].content[0].arguments.attachments[0], 'redacted')
  turn(structuredClone(spawn), 'rebuilt-2')
  const rebuilt = [...structuredClone(spawn), { role: 'user', content: '再来', timestamp: 5 }]
  delete rebuilt[1].content[0].arguments.attachments[0].content
  assert.deepEqual(turn(rebuilt, 'rebuilt-2')[1].content[0].arguments.attachments, [{ name: 'a.txt' }], 'nothing left to redact')
  assert.deepEqual(sessions.peek('rebuilt-2').hits, { identity: 0, content: 0, full: 3 })
})

test('2026.9.6 mode: model snapshots come from getBranch(); one that throws or gives no array is an empty branch', () => {
  const snapshot = (timestamp, modelId) => ({ type: 'custom', customType: 'model-snapshot', data: { timestamp, provider: 'openai', modelApi: 'openai-responses', modelId } })
  const reasoning = { type: 'thinking', thinking: '先想', thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) }
  const history = [{ role: 'user', content: '北京天气', timestamp: 1 }, { role: 'assistant', content: [reasoning, { type: 'text', text: '晴' }], stopReason: 'stop', timestamp: 2 }]
  // The entries hold a switch (gpt-5.2, then gpt-5 at 3): reasoning at 2 is from before it.
  const entries = [snapshot(1, 'gpt-5.2'), snapshot(3, 'gpt-5')]
  const run = (manager) => {
    const appended = []
    const out = th.sanitizeSessionHistory({ messages: history, provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5', openclawVersion: '2026.9.6', sessionManager: { ...manager, appendCustomEntry: (t) => appended.push(t) } })
    return { kept: out[1].content.includes(reasoning), appended }
  }
  assert.deepEqual(run({ getEntries: () => entries }), { kept: false, appended: [] }, 'no getBranch: the entries are the branch')
  assert.deepEqual(run({ getEntries: () => entries, getBranch: () => entries.slice(1) }), { kept: true, appended: [] }, 'the switch is not on this branch')
  for (const getBranch of [() => { throw new Error('分支读不出来') }, () => 'not an array']) {
    assert.deepEqual(run({ getEntries: () => entries, getBranch }), { kept: true, appended: ['model-snapshot'] }, String(getBranch))
  }
  // 2026.3.23 mode reads getEntries() and keeps Responses reasoning followed by a text.
  const old = th.sanitizeSessionHistory({ messages: history, provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5', openclawVersion: '2026.3.23', sessionManager: { getEntries: () => entries, getBranch: () => [] } })
  assert.ok(old[1].content.includes(reasoning))
})

/** Tool turn `t` of an agent's loop: a call (after `thought`, if any) and its result. */
function toolTurn(t, thought) {
  const id = `call_${t}|fc_${t}`
  return [
    { role: 'assistant', content: [...(thought ? [thought] : []), { type: 'toolCall', id, name: 'read', arguments: { path: `文件${t}.txt` } }], stopReason: 'toolUse', timestamp: 10 * t + 1 },
    { role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: '内容' }], timestamp: 10 * t + 2 },
  ]
}

/** A well-formed agent history of `n` messages: a question, a call, its result, an answer. */
function agentHistory(n) {
  const h = []
  for (let t = 0; h.length < n; t++) {
    const id = `call_${t}|fc_${t}`
    h.push({ role: 'user', content: `第${t}轮：读一下文件`, timestamp: t * 10 })
    h.push({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: { path: `文件${t}.txt` } }], stopReason: 'toolUse', timestamp: t * 10 + 1 })
    h.push({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: '文件内容'.repeat(8) }], isError: false, timestamp: t * 10 + 2 })
    h.push({ role: 'assistant', content: [{ type: 'text', text: '好的，读完了。' }], stopReason: 'stop', timestamp: t * 10 + 3 })
  }
  return h.slice(0, n)
}

/**
 * The best CPU µs of one content-keyed turn (the history handed again as new objects: encode,
 * compare with the remembered skeleton, replay the plans) over `n` messages; every timed turn
 * must have taken that path. The copies are made before the clock starts.
 */
let linearRuns = 0
function contentKeyedTurn(n, turns) {
  const o = POLICIES.anthropic
  const sessionId = `linear-${n}-${++linearRuns}`
  const history = agentHistory(n)
  th.sanitizeSessionHistory({ messages: history, ...o, sessionId })
  // The first call with other objects runs the full pass; from then on the session keeps skeletons.
  th.sanitizeSessionHistory({ messages: structuredClone(history), ...o, sessionId })
  const copies = Array.from({ length: turns }, () => structuredClone(history))
  const before = sessions.peek(sessionId).hits.content
  let best = Infinity
  for (const messages of copies) {
    const c = process.cpuUsage()
    th.sanitizeSessionHistory({ messages, ...o, sessionId })
    const { user, system } = process.cpuUsage(c)
    best = Math.min(best, user + system)
  }
  assert.equal(sessions.peek(sessionId).hits.content - before, turns, `${n} messages: every timed turn took the content-keyed path`)
  return best
}

/**
 * Fails unless `turn(5,000 messages)` takes at most 25× `turn(500)`'s CPU time: a ratio of two
 * sizes, never an absolute time (a scan per message would read 100×). Measured up to three times
 * before failing (a neighbour can take a core in the middle of a batch).
 */
function linear(turn, what) {
  const seen = []
  for (let attempt = 0; attempt < 3; attempt++) {
    const ratio = turn(5_000, 4) / Math.max(turn(500, 20), 50)
    if (ratio <= 25) return
    seen.push(`${ratio.toFixed(1)}×`)
  }
  assert.fail(`${what} took ${seen.join(', then ')} longer at 5,000 messages than at 500`)
}

test('content-keyed turns grow linearly with the history (10× the messages, at most 25× the CPU time)', () => {
  linear(contentKeyedTurn, 'a content-keyed turn')
})

/**
 * The best CPU µs of one 2026.9.6-mode loop turn (a signed-thinking call and its result appended
 * to the same array) over an autonomous loop of `n` messages under one user turn; every timed
 * turn must have continued from the remembered cut.
 */
function loopTurn(n, turns) {
  const o = POLICIES['anthropic opus 2026.9.6']
  const sessionId = `loop-linear-${n}-${++linearRuns}`
  const thought = { type: 'thinking', thinking: '下一步读哪个文件', thinkingSignature: 'c2lnbmVk' }
  const history = [{ role: 'user', content: '把这些文件都读一遍', timestamp: 0 }]
  for (let t = 0; history.length < n; t++) history.push(...toolTurn(t, thought))
  th.sanitizeSessionHistory({ messages: history, ...o, sessionId })
  const before = sessions.peek(sessionId).hits.identity
  let best = Infinity
  for (let t = 0; t < turns; t++) {
    history.push(...toolTurn(n + t, thought))
    const c = process.cpuUsage()
    th.sanitizeSessionHistory({ messages: history, ...o, sessionId })
    const { user, system } = process.cpuUsage(c)
    best = Math.min(best, user + system)
  }
  assert.equal(sessions.peek(sessionId).hits.identity - before, turns, `${n} messages: every timed turn continued`)
  return best
}

test('2026.9.6 mode: a loop turn grows linearly with the loop (10× the messages, at most 25× the CPU time)', () => {
  linear(loopTurn, 'a loop turn')
})
