// The transcript-hygiene command (issue #6): each subcommand run as a user runs it, through
// `node bin/transcript-hygiene.js …`, on copies of __test__/fixtures/cli/ in a temporary directory.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { th } from './fixtures/helpers.mjs'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = path.join(ROOT, 'bin', 'transcript-hygiene.js')
const FIXTURES = path.join(ROOT, '__test__', 'fixtures', 'cli')
const { readTranscript } = require('../js/cli/transcript-file.js')
const { main } = require('../js/cli/main.js')

const GOOGLE = ['--provider', 'google', '--model-api', 'google-generative-ai', '--model-id', 'gemini-2.5-pro']
const GOOGLE_TARGET = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }
// The tests whose counts and texts are OpenClaw 2026.3.23-2's pass name that release (the default
// is the current one, 2026.9.6); the others compare the command with the API under any default.
const OLD = ['--openclaw-version', '2026.3.23']

/**
 * Runs the command; `input` is written to stdin whole, or as an array of chunks with a pause
 * between them (a stream as a pipe delivers it). Resolves to {code, stdout, stderr}.
 */
function run(args, { input, cwd, pause = 15 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: cwd ?? tmp, stdio: ['pipe', 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
    child.stdin.on('error', () => {})
    if (input === undefined) child.stdin.end()
    else if (!Array.isArray(input)) child.stdin.end(input)
    else {
      const chunks = input.slice()
      const next = () => {
        if (chunks.length === 0) return child.stdin.end()
        child.stdin.write(chunks.shift())
        setTimeout(next, pause)
      }
      next()
    }
  })
}

/** Bad input: exit code 2 and exactly one line on stderr, no stack trace. */
function assertBadInput(r, pattern) {
  assert.equal(r.code, 2, `exit code 2 expected; stderr: ${r.stderr}`)
  const lines = r.stderr.split('\n')
  assert.equal(lines.pop(), '', 'stderr ends with a newline')
  assert.equal(lines.length, 1, `one line on stderr, got ${JSON.stringify(r.stderr)}`)
  assert.doesNotMatch(r.stderr, /^\s+at /m)
  if (pattern) assert.match(lines[0], pattern)
}

let tmp
let n = 0
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'th-cli-'))
})
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

/** A fresh directory holding copies of the named fixtures; returns its path. */
function workdir(...names) {
  const dir = path.join(tmp, `case-${n++}`)
  fs.mkdirSync(dir)
  for (const name of names) fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name))
  return dir
}

const read = (...p) => fs.readFileSync(path.join(...p), 'utf8')

/** The messages the command reads from a transcript file (the module it uses). */
function messagesOf(file) {
  return readTranscript(fs.readFileSync(file, 'utf8'), file)
}

describe('transcript-hygiene: help, version, dispatch', { concurrency: true }, () => {
  test('no arguments, -h and --help print the command list and exit 0', async () => {
    for (const args of [[], ['-h'], ['--help'], ['help']]) {
      const r = await run(args)
      assert.equal(r.code, 0)
      assert.match(r.stdout, /^Usage: transcript-hygiene <command>/)
      for (const cmd of ['sanitize', 'repair', 'clean', 'migrate', 'detect']) assert.match(r.stdout, new RegExp(`^  ${cmd} `, 'm'))
      assert.equal(r.stderr, '')
    }
  })

  test('--version prints the package version', async () => {
    const r = await run(['--version'])
    assert.equal(r.code, 0)
    assert.equal(r.stdout, `${JSON.parse(read(ROOT, 'package.json')).version}\n`)
  })

  test('every subcommand has --help, -h and `help <command>`', async () => {
    for (const cmd of ['sanitize', 'repair', 'clean', 'migrate', 'detect']) {
      const long = await run([cmd, '--help'])
      assert.equal(long.code, 0)
      assert.match(long.stdout, new RegExp(`^Usage: transcript-hygiene ${cmd} `))
      assert.match(long.stdout, /Exit codes: 0 done/)
      assert.equal((await run([cmd, '-h'])).stdout, long.stdout)
      assert.equal((await run(['help', cmd])).stdout, long.stdout)
    }
  })

  test('an unknown command or option is bad input: exit 2, one line', async () => {
    assertBadInput(await run(['frobnicate']), /unknown command "frobnicate"/)
    assertBadInput(await run(['--frob']), /unknown option --frob/)
    assertBadInput(await run(['help', 'frob']), /unknown command "frob"/)
    assertBadInput(await run(['detect', 'x.json', '--frob']), /^transcript-hygiene detect: unknown option --frob/)
    assertBadInput(await run(['sanitize', 'x.jsonl', '--provider']), /option --provider needs a value/)
    assertBadInput(await run(['sanitize']), /missing argument/)
    assertBadInput(await run(['detect', 'a.json', 'b.json']), /unexpected argument "b.json"/)
  })
})

describe('transcript-hygiene sanitize', { concurrency: true }, () => {
  test('a session file: each change as message, rule and reason, then a summary', async () => {
    const dir = workdir('session.jsonl')
    const r = await run(['sanitize', 'session.jsonl', ...GOOGLE, ...OLD], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const lines = r.stdout.trimEnd().split('\n')
    assert.equal(lines[0], 'session.jsonl: 8 changes in 8 messages (google / google-generative-ai / gemini-2.5-pro)')
    assert.ok(lines.includes('  message 2 (line 6)  sanitizeToolCallIds: tool call id "call_1|fc_1" → "call1fc1"'), r.stdout)
    assert.ok(lines.includes('  message 5 (line 10)  repairToolUseResultPairing: dropped a tool result that matches no call of the preceding assistant'), r.stdout)
    assert.ok(lines.some((l) => /^ {2}new message {2}sanitizeGoogleTurnOrdering: /.test(l)), r.stdout)
    assert.equal(lines.at(-1), '8 changes: sanitizeToolCallIds 4, repairToolUseResultPairing 2, repairToolCallInputs 1, sanitizeGoogleTurnOrdering 1')
    assert.equal(r.stderr, '')
  })

  test('--json: the changes of sanitizeSessionHistory, with message index, line and entry id', async () => {
    const dir = workdir('session.jsonl')
    const r = await run(['sanitize', 'session.jsonl', ...GOOGLE, ...OLD, '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    const t = messagesOf(path.join(dir, 'session.jsonl'))
    const api = th.sanitizeSessionHistory({ messages: t.messages, ...GOOGLE_TARGET, openclawVersion: '2026.3.23', sessionManager: { getEntries: () => t.entries.map((x) => x.entry) }, report: true })
    assert.equal(out.files.length, 1)
    const f = out.files[0]
    assert.equal(f.file, 'session.jsonl')
    assert.equal(f.format, 'session')
    assert.deepEqual([f.provider, f.modelApi, f.modelId, f.targetFrom], ['google', 'google-generative-ai', 'gemini-2.5-pro', 'flags'])
    assert.equal(f.messages, t.messages.length)
    assert.equal(f.sanitizedMessages, api.messages.length)
    assert.deepEqual(
      f.changes.map(({ rule, path: p, detail }) => ({ rule, path: p, detail })),
      api.changes,
    )
    const id = f.changes.find((c) => c.path === 'messages[2].content[0]')
    assert.deepEqual([id.message, id.line, id.entryId], [2, 6, 'e5'])
    assert.equal(f.changes.find((c) => c.path === 'messages[new]').message, null)
    assert.equal(f.written, null)
    assert.deepEqual(out.summary, { files: 1, changed: 1, errors: 0, changes: 8, byRule: { sanitizeToolCallIds: 4, repairToolCallInputs: 1, repairToolUseResultPairing: 2, sanitizeGoogleTurnOrdering: 1 } })
  })

  test('the target model defaults to the one the transcript last used', async () => {
    const dir = workdir('messages.json')
    const r = await run(['sanitize', 'messages.json', '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const f = JSON.parse(r.stdout).files[0]
    assert.deepEqual([f.provider, f.modelApi, f.modelId, f.targetFrom], ['openai', 'openai-responses', 'gpt-5', 'transcript'])
    assert.ok(f.changes.some((c) => c.rule === 'downgradeOpenAIFunctionCallReasoningPairs'))
    // Without any model in the transcript, the flags are needed.
    fs.writeFileSync(path.join(dir, 'plain.json'), JSON.stringify([{ role: 'user', content: 'hi', timestamp: 1 }]))
    assertBadInput(await run(['sanitize', 'plain.json'], { cwd: dir }), /^plain\.json: names no model; give --provider/)
  })

  test('--check exits 1 when the pass would change something, 0 when not; writes nothing', async () => {
    const dir = workdir('session.jsonl')
    const before = read(dir, 'session.jsonl')
    const r = await run(['sanitize', 'session.jsonl', ...GOOGLE, ...OLD, '--check'], { cwd: dir })
    assert.equal(r.code, 1)
    assert.match(r.stdout, /8 changes/)
    assert.equal(read(dir, 'session.jsonl'), before)
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
    const w = await run(['sanitize', 'session.jsonl', ...GOOGLE, ...OLD, '--write', 'clean.jsonl'], { cwd: dir })
    assert.equal(w.code, 0, w.stderr)
    const again = await run(['sanitize', 'clean.jsonl', ...GOOGLE, ...OLD, '--check'], { cwd: dir })
    assert.equal(again.code, 0, again.stdout)
    assert.equal(again.stdout, 'clean.jsonl: no changes in 8 messages (google / google-generative-ai / gemini-2.5-pro)\nnothing to change\n')
  })

  // One pass leaves an empty text block where an aborted turn held only thinking the target drops
  // (as OpenClaw does); the next pass drops the turn. --write writes the settled result.
  test('--write is a fixed point on an aborted thinking-only turn', async () => {
    const dir = workdir()
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
    const turn = (content, stopReason, timestamp) => ({ role: 'assistant', content, api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason, timestamp })
    const messages = [
      { role: 'user', content: '讲一下这个仓库', timestamp: 1 },
      turn([{ type: 'thinking', thinking: '先看看目录结构', thinkingSignature: 'sig' }], 'aborted', 2),
      { role: 'user', content: '继续', timestamp: 3 },
      turn([{ type: 'text', text: '好的。' }], 'stop', 4),
    ]
    const lines = [{ type: 'session', version: 3, id: 'sess-a', timestamp: '2026-03-01T00:00:00.000Z', cwd: '/w' }]
    messages.forEach((message, i) => lines.push({ type: 'message', id: `e${i + 1}`, parentId: i === 0 ? null : `e${i}`, timestamp: `2026-03-01T00:00:0${i + 1}.000Z`, message }))
    fs.writeFileSync(path.join(dir, 'aborted.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const w = await run(['sanitize', 'aborted.jsonl', ...OLD, '--write', 'out.jsonl'], { cwd: dir })
    assert.equal(w.code, 0, w.stderr)
    assert.match(w.stdout, /^aborted\.jsonl: 1 change in 4 messages .*\n {2}message 1 \(line 3\) {2}dropThinkingBlocks: dropped a thinking block\n {2}written to out\.jsonl \(3 messages\)\n/)
    assert.equal(w.stderr, 'aborted.jsonl: a second pass changes what the first one left (2 more: sanitizeImages); written after it, so that sanitizing out.jsonl again changes nothing\n')
    assert.deepEqual(messagesOf(path.join(dir, 'out.jsonl')).messages.map((m) => m.timestamp), [1, 3, 4])
    const again = await run(['sanitize', 'out.jsonl', ...OLD, '--check'], { cwd: dir })
    assert.equal(again.code, 0, again.stdout)
    assert.match(again.stdout, /^out\.jsonl: no changes in 3 messages/)
  })

  // The entries each case leaves alone: off the branch (e4), before the compaction's kept
  // messages (e1, e2 of compacted.jsonl), labels and model changes whose parent stays.
  // Changed messages keep their entries (e5: ids rewritten, e8: its result; e4 of compacted.jsonl).
  for (const [fixture, args, untouched, changed] of [
    ['session.jsonl', GOOGLE, ['e2', 'e4', 'e6'], ['e5', 'e8']],
    ['session.jsonl', ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'], ['e1', 'e2', 'e3', 'e4', 'e6'], ['e5', 'e8', 'e11']],
    ['compacted.jsonl', GOOGLE, ['e1', 'e2', 'e3', 'e5'], ['e4']],
  ]) {
    test(`--write on ${fixture} (${args[1]}): a session whose context is the sanitized messages; untouched entries kept byte for byte`, async () => {
      const dir = workdir(fixture)
      const original = read(dir, fixture)
      const r = await run(['sanitize', fixture, ...args, '--write', 'out.jsonl'], { cwd: dir })
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, /written to out\.jsonl/)
      assert.equal(read(dir, fixture), original, 'the input is not touched')
      const t = messagesOf(path.join(dir, fixture))
      const target = { provider: args[1], modelApi: args[3], modelId: args[5] }
      const expected = th.sanitizeSessionHistory({ messages: t.messages, ...target, sessionManager: { getEntries: () => t.entries.map((x) => x.entry) } })
      const written = read(dir, 'out.jsonl')
      const w = messagesOf(path.join(dir, 'out.jsonl'))
      assert.deepEqual(JSON.parse(JSON.stringify(w.messages)), JSON.parse(JSON.stringify(expected)))
      // The header and every entry the pass did not touch are the same lines.
      const kept = new Set(written.split('\n'))
      const lines = original.trimEnd().split('\n')
      assert.ok(kept.has(lines[0]), 'header kept')
      for (const line of lines) if (untouched.includes(JSON.parse(line).id)) assert.ok(kept.has(line), `kept: ${line}`)
      const ids = w.entries.map((x) => x.entry.id)
      for (const id of changed) {
        const before = t.entries.find((x) => x.entry.id === id).entry
        const now = w.entries.find((x) => x.entry.id === id)
        assert.ok(now, `entry ${id} kept`)
        assert.notDeepEqual(now.entry.message, before.message)
        assert.equal(now.entry.timestamp, before.timestamp)
      }
      // Inserted messages are the only new entries.
      const inserted = expected.length - t.messages.filter((m) => expected.some((o) => o.timestamp === m.timestamp && o.role === m.role)).length
      assert.equal(ids.filter((id) => !t.byId.has(id)).length, inserted)
      // Entry ids stay unique and the last line is still the branch's leaf.
      assert.equal(new Set(ids).size, ids.length)
      assert.equal(w.branch.at(-1), w.entries.at(-1))
    })
  }

  test('2026.9.6: a model switch recorded on another branch of the session does not touch this branch', async () => {
    const dir = workdir()
    const snapshot = (id, parentId, timestamp, modelId) => ({ type: 'custom', id, parentId, timestamp: new Date(timestamp).toISOString(), customType: 'model-snapshot', data: { timestamp, provider: 'openai', modelApi: 'openai-responses', modelId } })
    const reasoning = { type: 'thinking', thinking: '先查天气', thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) }
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
    const said = { role: 'assistant', content: [reasoning, { type: 'text', text: '北京晴。' }], api: 'openai-responses', provider: 'openai', model: 'gpt-5', usage, stopReason: 'stop', timestamp: 2 }
    const lines = [
      { type: 'session', version: 3, id: 'sess-b', timestamp: '2026-03-01T00:00:00.000Z', cwd: '/w' },
      { type: 'message', id: 'e1', parentId: null, timestamp: '2026-03-01T00:00:01.000Z', message: { role: 'user', content: '北京天气', timestamp: 1 } },
      { type: 'message', id: 'e2', parentId: 'e1', timestamp: '2026-03-01T00:00:02.000Z', message: said },
      // Another branch from e2: gpt-5.2, then a switch back to gpt-5 at 3 (after the reasoning).
      snapshot('e3', 'e2', 1, 'gpt-5.2'),
      snapshot('e4', 'e3', 3, 'gpt-5'),
      // The current branch (the last entry is the leaf): e5 → e2 → e1, no snapshot on it.
      { type: 'message', id: 'e5', parentId: 'e2', timestamp: '2026-03-01T00:00:05.000Z', message: { role: 'user', content: '上海呢', timestamp: 5 } },
    ]
    fs.writeFileSync(path.join(dir, 'branches.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const target = ['--provider', 'openai', '--model-api', 'openai-responses', '--model-id', 'gpt-5', '--openclaw-version', '2026.9.6']
    const r = await run(['sanitize', 'branches.jsonl', ...target, '--check'], { cwd: dir })
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^branches\.jsonl: no changes in 3 messages/)
    // The same switch on the current branch drops the reasoning from before it.
    lines[5].parentId = 'e4'
    fs.writeFileSync(path.join(dir, 'switched.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const s = await run(['sanitize', 'switched.jsonl', ...target, '--check'], { cwd: dir })
    assert.equal(s.code, 1, s.stdout + s.stderr)
    assert.match(s.stdout, /dropStaleOpenAIReasoning/)
  })

  test('--write on a JSON array writes a JSON array, an object keeps its other keys', async () => {
    const dir = workdir('messages.json')
    const messages = JSON.parse(read(dir, 'messages.json'))
    const expected = th.sanitizeSessionHistory({ messages, ...GOOGLE_TARGET })
    const r = await run(['sanitize', 'messages.json', ...GOOGLE, '--write', 'out.json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(read(dir, 'out.json')), JSON.parse(JSON.stringify(expected)))
    assert.match(read(dir, 'out.json'), /^\[\n {2}\{/, 'indentation of the input kept')
    fs.writeFileSync(path.join(dir, 'wrapped.json'), JSON.stringify({ sessionId: 's', messages }))
    const w = await run(['sanitize', 'wrapped.json', ...GOOGLE, '--write', 'wrapped-out.json'], { cwd: dir })
    assert.equal(w.code, 0, w.stderr)
    assert.deepEqual(JSON.parse(read(dir, 'wrapped-out.json')), { sessionId: 's', messages: JSON.parse(JSON.stringify(expected)) })
    assertBadInput(await run(['sanitize', 'messages.json', ...GOOGLE, '--write', 'messages.json'], { cwd: dir }), /would overwrite the input/)
    assertBadInput(await run(['sanitize', 'messages.json', ...GOOGLE, '--write', 'x.json', '--check'], { cwd: dir }), /--check and --write cannot be used together/)
  })

  test('a .jsonl of messages is written back as one, unchanged messages as their own lines', async () => {
    const dir = workdir('messages.json')
    const messages = JSON.parse(read(dir, 'messages.json'))
    const lines = messages.map((m, i) => (i === 0 ? JSON.stringify(m, null, 0).replace('{', '{ ') : JSON.stringify(m)))
    fs.writeFileSync(path.join(dir, 'm.jsonl'), `${lines.join('\n')}\n`)
    const r = await run(['sanitize', 'm.jsonl', ...GOOGLE, '--write', 'out.jsonl'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const out = read(dir, 'out.jsonl').trimEnd().split('\n')
    const expected = th.sanitizeSessionHistory({ messages, ...GOOGLE_TARGET })
    assert.deepEqual(out.map((l) => JSON.parse(l)), JSON.parse(JSON.stringify(expected)))
    assert.equal(out[0], lines[0], 'the untouched first message keeps its own spelling')
  })

  test('a session with a torn line: the line is left out with a note on stderr', async () => {
    const dir = workdir('session.jsonl')
    fs.appendFileSync(path.join(dir, 'session.jsonl'), '{"type":"message","id":"e13","mess')
    const r = await run(['sanitize', 'session.jsonl', ...GOOGLE, ...OLD, '--check'], { cwd: dir })
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'session.jsonl: line 14 not valid JSON, left out (transcript-hygiene repair drops such lines)\n')
    assert.match(r.stdout, /^session\.jsonl: 8 changes in 8 messages/)
  })

  test('a directory: every *.jsonl, a summary, unreadable files reported and counted (exit 2), no progress without a TTY', async () => {
    const dir = workdir('session.jsonl', 'compacted.jsonl')
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a session')
    fs.writeFileSync(path.join(dir, 'broken.jsonl'), 'not json\n')
    fs.mkdirSync(path.join(dir, 'sub'))
    fs.copyFileSync(path.join(FIXTURES, 'session.jsonl'), path.join(dir, 'sub', 'deep.jsonl'))
    const r = await run(['sanitize', '.', ...GOOGLE, ...OLD], { cwd: dir })
    assert.equal(r.code, 2)
    assert.equal(r.stderr, 'broken.jsonl: no JSON lines in it\n')
    assert.doesNotMatch(r.stderr, /\r/)
    assert.match(r.stdout.trimEnd().split('\n').at(-1), /^3 files, 2 with changes, 1 unreadable; 12 changes: sanitizeToolCallIds 5, repairToolUseResultPairing 3, usageSnapshots 2, repairToolCallInputs 1, sanitizeGoogleTurnOrdering 1$/)
    fs.unlinkSync(path.join(dir, 'broken.jsonl'))
    const j = await run(['sanitize', '.', ...GOOGLE, '--json', '-r'], { cwd: dir })
    assert.equal(j.code, 0, j.stderr)
    assert.equal(j.stderr, '')
    const out = JSON.parse(j.stdout)
    assert.deepEqual(out.files.map((f) => f.file), ['compacted.jsonl', 'session.jsonl', path.join('sub', 'deep.jsonl')])
    assert.equal(out.summary.files, 3)
    assert.equal(out.summary.changes, out.files.reduce((s, f) => s + f.changes.length, 0))
    const c = await run(['sanitize', '.', ...GOOGLE, '--check'], { cwd: dir })
    assert.equal(c.code, 1)
  })

  test('a directory with --write OUT: every file sanitized into OUT', async () => {
    const dir = workdir('session.jsonl', 'compacted.jsonl')
    const outDir = path.join(tmp, `out-${n}`, 'nested')
    const r = await run(['sanitize', dir, ...GOOGLE, '--write', outDir], { cwd: tmp })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(fs.readdirSync(outDir).sort(), ['compacted.jsonl', 'session.jsonl'])
    const again = await run(['sanitize', outDir, ...GOOGLE, '--check'], { cwd: tmp })
    assert.equal(again.code, 0, again.stdout)
    assertBadInput(await run(['sanitize', dir, ...GOOGLE, '--write', path.join(dir, 'inside')], { cwd: tmp }), /inside the input directory/)
  })

  test('bad input: missing file, bad JSON, not messages, bad --policy-json', async () => {
    const dir = workdir()
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"messages": [')
    fs.writeFileSync(path.join(dir, 'obj.json'), '{"a": 1}')
    assertBadInput(await run(['sanitize', 'missing.jsonl', ...GOOGLE], { cwd: dir }), /^missing\.jsonl: no such file or directory$/)
    assertBadInput(await run(['sanitize', 'bad.json', ...GOOGLE], { cwd: dir }), /^bad\.json: not valid JSON \(/)
    assertBadInput(await run(['sanitize', 'obj.json', ...GOOGLE], { cwd: dir }), /^obj\.json: expected a JSON array of messages/)
    assertBadInput(await run(['sanitize', 'obj.json', ...GOOGLE, '--policy-json', '[1]'], { cwd: dir }), /^--policy-json: expected a JSON object/)
    assertBadInput(await run(['sanitize', 'obj.json', ...GOOGLE, '--policy-json', '{x'], { cwd: dir }), /^--policy-json: not valid JSON/)
  })

  test('a Cline / Roo / Kilo history is named as one, not sanitized as pi messages; detect on a session says what it reads', async () => {
    const dir = workdir('history-mixed.json', 'session.jsonl')
    assertBadInput(await run(['sanitize', 'history-mixed.json', ...GOOGLE], { cwd: dir }), /^history-mixed\.json: a Cline \/ Roo \/ Kilo history .*detect and migrate read it$/)
    assertBadInput(await run(['detect', 'session.jsonl'], { cwd: dir }), /^session\.jsonl: one JSON value per line .*api_conversation_history\.json/)
    // The twin: pi messages in a .json file are still sanitized.
    const ok = await run(['sanitize', 'messages.json', ...GOOGLE, '--json'], { cwd: workdir('messages.json') })
    assert.notEqual(ok.code, 2, ok.stderr)
  })

  test('--policy-json and --allowed-tools reach the pass', async () => {
    const dir = workdir('messages.json')
    const r = await run(['sanitize', 'messages.json', '--provider', 'openai', '--model-api', 'openai-completions', '--model-id', 'gpt-4o', '--allowed-tools', 'read', '--policy-json', '{"sanitizeToolCallIds":true,"toolCallIdMode":"strict9"}', ...OLD, '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const rules = JSON.parse(r.stdout).files[0].changes.map((c) => c.rule)
    assert.ok(rules.includes('repairToolCallInputs'), rules.join())
    assert.ok(rules.includes('sanitizeToolCallIds'), rules.join())
  })

  test('--openclaw-version picks the release (without it: the package default); anything else is bad input', async () => {
    const dir = workdir('session.jsonl')
    const t = messagesOf(path.join(dir, 'session.jsonl'))
    const api = (openclawVersion) => th.sanitizeSessionHistory({ messages: t.messages, ...GOOGLE_TARGET, openclawVersion, sessionManager: { getEntries: () => t.entries.map((x) => x.entry) }, report: true }).changes
    assert.notDeepEqual(api('2026.9.6'), api('2026.3.23'), 'the fixture tells the releases apart')
    // The release that is not the default (the --write tests above show the default is followed).
    const other = th.getOpenClawVersion() === '2026.9.6' ? '2026.3.23' : '2026.9.6'
    const r = await run(['sanitize', 'session.jsonl', ...GOOGLE, '--openclaw-version', other, '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(r.stdout).files[0].changes.map(({ rule, path: p, detail }) => ({ rule, path: p, detail })), api(other))
    assertBadInput(await run(['sanitize', 'session.jsonl', ...GOOGLE, '--openclaw-version', '2026.9'], { cwd: dir }), /^--openclaw-version: expected '2026\.3\.23' or '2026\.9\.6', got "2026\.9"$/)
  })
})

describe('transcript-hygiene repair', { concurrency: true }, () => {
  const header = JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-03-01T00:00:00.000Z', cwd: '/w' })
  const msg = JSON.stringify({ type: 'message', id: 'm1', parentId: null, timestamp: '2026-03-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1 } })
  const torn = `${header}\n${msg}\n{"type":"message","id":"m2","mess`

  test('--check lists the lines that would be dropped, exits 1 and writes nothing', async () => {
    const dir = workdir()
    fs.writeFileSync(path.join(dir, 's.jsonl'), torn)
    const r = await run(['repair', '--check', 's.jsonl'], { cwd: dir })
    assert.equal(r.code, 1)
    assert.equal(r.stdout, 's.jsonl: would drop 1 invalid line (line 3)\n')
    assert.equal(read(dir, 's.jsonl'), torn)
    assert.deepEqual(fs.readdirSync(dir), ['s.jsonl'])
  })

  test('repairs in place with a backup of the original, then has nothing to do', async () => {
    const dir = workdir()
    fs.writeFileSync(path.join(dir, 's.jsonl'), torn)
    const r = await run(['repair', 's.jsonl'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const m = /^s\.jsonl: dropped 1 invalid line \(line 3\); backup (s\.jsonl\.bak-\d+-\d+)\n$/.exec(r.stdout)
    assert.ok(m, r.stdout)
    assert.equal(read(dir, m[1]), torn)
    assert.equal(read(dir, 's.jsonl'), `${header}\n${msg}\n`)
    const again = await run(['repair', '--check', 's.jsonl'], { cwd: dir })
    assert.equal(again.code, 0)
    assert.equal(again.stdout, 's.jsonl: nothing to repair\n')
  })

  test('--json, --no-backup and a directory', async () => {
    const dir = workdir()
    fs.mkdirSync(path.join(dir, 'sessions'))
    fs.writeFileSync(path.join(dir, 'sessions', 'a.jsonl'), torn)
    fs.writeFileSync(path.join(dir, 'sessions', 'b.jsonl'), `${header}\n${msg}\n`)
    const r = await run(['repair', 'sessions', '--json', '--no-backup'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.files, [
      { file: path.join('sessions', 'a.jsonl'), status: 'repaired', droppedLines: 1, droppedLineNumbers: [3] },
      { file: path.join('sessions', 'b.jsonl'), status: 'ok', droppedLines: 0, droppedLineNumbers: [] },
    ])
    assert.deepEqual(out.summary, { files: 2, repaired: 1, needsRepair: 0, ok: 1, errors: 0 })
    assert.deepEqual(fs.readdirSync(path.join(dir, 'sessions')).sort(), ['a.jsonl', 'b.jsonl'])
    assert.doesNotMatch(r.stderr, /\r/)
  })

  test('a missing file or a file without a session header is bad input', async () => {
    const dir = workdir()
    assertBadInput(await run(['repair', 'nope.jsonl'], { cwd: dir }), /^nope\.jsonl: missing session file$/)
    fs.writeFileSync(path.join(dir, 'h.jsonl'), `${msg}\nnot json\n`)
    assertBadInput(await run(['repair', 'h.jsonl'], { cwd: dir }), /^h\.jsonl: invalid session header$/)
    assert.equal(read(dir, 'h.jsonl'), `${msg}\nnot json\n`)
  })
})

describe('transcript-hygiene clean', { concurrency: true }, () => {
  const reply = fs.readFileSync(path.join(FIXTURES, 'reply-hermes.txt'), 'utf8')
  const whole = th.cleanResponse(reply)

  test('a file: the visible text on stdout exactly, the tool calls on stderr', async () => {
    const dir = workdir('reply-hermes.txt')
    const r = await run(['clean', 'reply-hermes.txt'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, whole.content)
    assert.equal(r.stdout, 'Let me check the weather in 北京.')
    assert.equal(r.stderr, whole.toolCalls.map((c) => `tool call: ${JSON.stringify(c)}\n`).join(''))
    assert.equal(whole.toolCalls.length, 2)
  })

  test('stdin, as - or with no file; --json is cleanResponse\'s result', async () => {
    for (const args of [['clean', '-', '--json'], ['clean', '--json']]) {
      const r = await run(args, { input: reply })
      assert.equal(r.code, 0, r.stderr)
      assert.deepEqual(JSON.parse(r.stdout), whole)
    }
  })

  test('--stream on stdin delivered in small chunks gives what the whole reply gives', async () => {
    const chunks = []
    for (let i = 0; i < reply.length; i += 7) chunks.push(reply.slice(i, i + 7))
    const streamed = await run(['clean', '--stream'], { input: chunks })
    const plain = await run(['clean'], { input: reply })
    assert.equal(streamed.code, 0, streamed.stderr)
    assert.equal(streamed.stdout, plain.stdout)
    assert.equal(streamed.stderr, plain.stderr)
    // Split inside a multi-byte character too: the bytes are decoded across chunks.
    const bytes = Buffer.from(reply)
    const pieces = []
    for (let i = 0; i < bytes.length; i += 5) pieces.push(bytes.subarray(i, i + 5))
    const byBytes = await run(['clean', '--stream'], { input: pieces, pause: 2 })
    assert.equal(byBytes.stdout, plain.stdout)
    assert.equal(byBytes.stderr, plain.stderr)
  })

  test('--stream --json: one line per chunk that gave something, then the end; together the whole result', async () => {
    const chunks = [reply.slice(0, 30), reply.slice(30, 90), reply.slice(90)]
    const r = await run(['clean', '--stream', '--json'], { input: chunks, pause: 40 })
    assert.equal(r.code, 0, r.stderr)
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))
    assert.ok(events.length >= 2, r.stdout)
    const end = events.at(-1)
    assert.deepEqual([end.format, end.problems], [whole.format, whole.problems])
    assert.equal(events.map((e) => e.content).join(''), whole.content)
    assert.equal(events.map((e) => e.reasoning).join(''), whole.reasoning)
    assert.deepEqual(events.flatMap((e) => e.toolCalls), whole.toolCalls)
  })

  test('--check: exit 1 and what would be taken out, exit 0 for a plain reply', async () => {
    const dirty = await run(['clean', '--check'], { input: reply })
    assert.equal(dirty.code, 1)
    assert.equal(dirty.stdout, 'stdin: 2 tool calls and reasoning to take out\n')
    const plain = await run(['clean', '--check', '-'], { input: 'Just text, <b>bold</b> [link](x).' })
    assert.equal(plain.code, 0)
    assert.equal(plain.stdout, 'stdin: nothing to clean\n')
    const streamed = await run(['clean', '--check', '--stream'], { input: [reply.slice(0, 50), reply.slice(50)] })
    assert.equal(streamed.code, 1)
  })

  test('--format, --model, --thinking reach the cleaner; bad values are bad input', async () => {
    const text = '<think>r</think>Hi<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    const keep = await run(['clean', '--thinking', 'keep', '--format', 'hermes', '--json'], { input: text })
    assert.deepEqual(JSON.parse(keep.stdout), th.cleanResponse(text, { thinking: 'keep', format: 'hermes' }))
    const model = await run(['clean', '--model', 'meta-llama/Llama-3.3-70B-Instruct', '--json'], { input: '{"name": "f", "parameters": {"a": 1}}' })
    assert.equal(JSON.parse(model.stdout).toolCalls.length, 1)
    assertBadInput(await run(['clean', '--format', 'nope'], { input: text }), /unknown --format "nope"/)
    assertBadInput(await run(['clean', '--thinking', 'maybe'], { input: text }), /--thinking must be extract, strip or keep/)
    assertBadInput(await run(['clean', 'missing.txt']), /^missing\.txt: no such file or directory$/)
    assertBadInput(await run(['clean', '--stream', 'missing.txt']), /^missing\.txt: no such file or directory$/)
  })
})

describe('transcript-hygiene detect and migrate', { concurrency: true }, () => {
  const history = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'history-mixed.json'), 'utf8'))
  const tools = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'tools-kilo.json'), 'utf8'))

  test('detect: the style and the count of each kind of evidence; -v lists them; --json', async () => {
    const dir = workdir('history-mixed.json')
    const r = await run(['detect', 'history-mixed.json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'history-mixed.json: mixed (flattened_call 1, flattened_result 1, tool_use 1, tool_result 1); transcript-hygiene migrate rebuilds the flattened ones\n')
    const v = await run(['detect', '-v', 'history-mixed.json'], { cwd: dir })
    assert.match(v.stdout, /^ {2}history\[1\]\.content\[1\] {2}flattened_call$/m)
    const j = await run(['detect', 'history-mixed.json', '--json'], { cwd: dir })
    const api = th.detectToolStyle(history)
    assert.deepEqual(JSON.parse(j.stdout), { file: 'history-mixed.json', style: api.style, counts: { flattened_call: 1, flattened_result: 1, tool_use: 1, tool_result: 1 }, evidence: api.evidence })
  })

  test('detect: bad input', async () => {
    const dir = workdir()
    fs.writeFileSync(path.join(dir, 'o.json'), '{}')
    fs.writeFileSync(path.join(dir, 'b.json'), '[{"role": 1}]')
    assertBadInput(await run(['detect', 'o.json'], { cwd: dir }), /^o\.json: expected a JSON array of messages/)
    assertBadInput(await run(['detect', 'b.json'], { cwd: dir }), /^b\.json: history\[0\]\.role: expected a string/)
    assertBadInput(await run(['detect', 'none.json'], { cwd: dir }), /^none\.json: no such file or directory$/)
  })

  test('migrate --check: exit 1, the rebuilt calls listed, nothing written', async () => {
    const dir = workdir('history-mixed.json')
    const before = read(dir, 'history-mixed.json')
    const r = await run(['migrate', '--check', 'history-mixed.json'], { cwd: dir })
    assert.equal(r.code, 1)
    assert.equal(r.stdout, 'history-mixed.json: would rebuild 1 tool call (1 flattened)\n')
    assert.equal(read(dir, 'history-mixed.json'), before)
    assert.deepEqual(fs.readdirSync(dir), ['history-mixed.json'])
  })

  test('migrate: a backup of the original bytes, the file rewritten in its own layout, idempotent', async () => {
    const dir = workdir('history-mixed.json', 'tools-kilo.json')
    const before = read(dir, 'history-mixed.json')
    const r = await run(['migrate', 'history-mixed.json', '--tools', 'tools-kilo.json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const m = /^history-mixed\.json: rebuilt 1 tool call \(1 flattened\); backup (history-mixed\.json\.bak-\d+-\d+)\n$/.exec(r.stdout)
    assert.ok(m, r.stdout)
    assert.equal(read(dir, m[1]), before)
    const after = read(dir, 'history-mixed.json')
    assert.deepEqual(JSON.parse(after), th.recoverToolBlocks(history, { tools }).history)
    assert.equal(after, `${JSON.stringify(JSON.parse(after), null, 2)}\n`, 'two-space indentation and final newline kept')
    assert.deepEqual(JSON.parse(after)[1].content[1].input, { path: '.', recursive: true }, 'typed from the schema')
    assert.equal(th.detectToolStyle(JSON.parse(after)).style, 'json')
    const again = await run(['migrate', 'history-mixed.json'], { cwd: dir })
    assert.equal(again.code, 0)
    assert.equal(again.stdout, 'history-mixed.json: nothing to migrate\n')
    assert.equal(fs.readdirSync(dir).filter((f) => f.includes('.bak-')).length, 1)
  })

  test('migrate and sanitize --write go through symlinks: the link stays, the file it names is written', { skip: process.platform === 'win32' }, async () => {
    const dir = workdir('history-mixed.json', 'session.jsonl')
    fs.mkdirSync(path.join(dir, 'real'))
    fs.renameSync(path.join(dir, 'history-mixed.json'), path.join(dir, 'real', 'h.json'))
    fs.symlinkSync(path.join('real', 'h.json'), path.join(dir, 'history-mixed.json'))
    fs.chmodSync(path.join(dir, 'real', 'h.json'), 0o600)
    const r = await run(['migrate', 'history-mixed.json', '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    assert.ok(fs.lstatSync(path.join(dir, 'history-mixed.json')).isSymbolicLink(), 'the link was replaced by a file')
    assert.equal(th.detectToolStyle(JSON.parse(read(dir, 'real/h.json'))).style, 'json')
    assert.equal(fs.statSync(path.join(dir, 'real', 'h.json')).mode & 0o777, 0o600)
    assert.match(JSON.parse(r.stdout).files[0].backupPath, /^real\/h\.json\.bak-\d+-\d+$/)
    fs.writeFileSync(path.join(dir, 'real', 'out.jsonl'), 'old')
    fs.symlinkSync(path.join('real', 'out.jsonl'), path.join(dir, 'out.jsonl'))
    const w = await run(['sanitize', 'session.jsonl', ...GOOGLE, '--write', 'out.jsonl'], { cwd: dir })
    assert.equal(w.code, 0, w.stderr)
    assert.ok(fs.lstatSync(path.join(dir, 'out.jsonl')).isSymbolicLink())
    assert.notEqual(read(dir, 'real/out.jsonl'), 'old')
    assert.deepEqual(fs.readdirSync(path.join(dir, 'real')).filter((f) => f.endsWith('.tmp')), [])
  })

  test('migrate --json and a directory of tasks', async () => {
    const dir = workdir()
    for (const task of ['t1', 't2']) {
      fs.mkdirSync(path.join(dir, 'tasks', task), { recursive: true })
      fs.copyFileSync(path.join(FIXTURES, 'history-mixed.json'), path.join(dir, 'tasks', task, 'api_conversation_history.json'))
    }
    fs.writeFileSync(path.join(dir, 'tasks', 't2', 'api_conversation_history.json'), JSON.stringify(th.recoverToolBlocks(history).history))
    const r = await run(['migrate', 'tasks', '--json'], { cwd: dir })
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.files.map((f) => [f.file, f.changed, f.written]), [
      [path.join('tasks', 't1', 'api_conversation_history.json'), true, true],
      [path.join('tasks', 't2', 'api_conversation_history.json'), false, false],
    ])
    assert.equal(out.files[0].recovered.length, 1)
    assert.match(out.files[0].backupPath, /api_conversation_history\.json\.bak-\d+-\d+$/)
    assert.deepEqual(out.summary, { files: 2, changed: 1, errors: 0, recovered: 1, unrecoverable: 0 })
  })

  test('migrate: bad input', async () => {
    const dir = workdir()
    fs.writeFileSync(path.join(dir, 'h.json'), '[')
    assertBadInput(await run(['migrate', 'h.json'], { cwd: dir }), /^h\.json: not valid JSON/)
    assertBadInput(await run(['migrate', 'none.json'], { cwd: dir }), /^none\.json: no such file or directory$/)
    fs.writeFileSync(path.join(dir, 'ok.json'), '[]')
    assertBadInput(await run(['migrate', 'ok.json', '--tools', 'none.json'], { cwd: dir }), /^none\.json: no such file or directory$/)
  })
})

describe('on a terminal', () => {
  /** A writable stand-in for a stream: `isTTY` as given, what is written kept. */
  const sink = (isTTY) => ({ isTTY, columns: 80, text: '', write(s) {
    this.text += s
    return true
  } })

  test('clean: a tool call line of its own, a final newline; the text itself unchanged when piped', async () => {
    const dir = workdir()
    const file = path.join(dir, 'r.txt')
    fs.writeFileSync(file, 'A<tool_call>{"name": "f", "arguments": {}}</tool_call> B')
    for (const mode of [[], ['--stream']]) {
      const screen = { isTTY: true, text: '', write(s) {
        this.text += s
        return true
      } }
      assert.equal(await main(['clean', file, ...mode], { stdout: screen, stderr: screen }), 0)
      const call = th.cleanResponse('A<tool_call>{"name": "f", "arguments": {}}</tool_call> B').toolCalls[0]
      assert.match(screen.text, /^A( B)?\n?tool call: /, mode.join())
      assert.ok(screen.text.includes(`tool call: ${JSON.stringify(call)}\n`))
      assert.ok(screen.text.endsWith('\n'))
      assert.equal(screen.text.replace(/\n?tool call: .*\n/, '').replace(/\n$/, ''), 'A B')
    }
    const piped = await run(['clean', file, '--stream'])
    assert.equal(piped.stdout, 'A B')
  })

  test('a directory run shows a \\r counter on a TTY stderr and clears it; none when stderr is not a TTY', async () => {
    const dir = workdir('session.jsonl', 'compacted.jsonl')
    const tty = { stdout: sink(false), stderr: sink(true) }
    assert.equal(await main(['repair', '--check', dir], tty), 0)
    assert.match(tty.stderr.text, /\r\x1b\[K\[1\/2\] /)
    assert.match(tty.stderr.text, /\r\x1b\[K\[2\/2\] /)
    assert.ok(tty.stderr.text.endsWith('\r\x1b[K'), JSON.stringify(tty.stderr.text))
    const pipe = { stdout: sink(false), stderr: sink(false) }
    assert.equal(await main(['sanitize', dir, ...GOOGLE], pipe), 0)
    assert.equal(pipe.stderr.text, '')
    const ttySanitize = { stdout: sink(false), stderr: sink(true) }
    assert.equal(await main(['sanitize', dir, ...GOOGLE], ttySanitize), 0)
    assert.match(ttySanitize.stderr.text, /\[2\/2\] session\.jsonl/)
    assert.equal(ttySanitize.stdout.text, pipe.stdout.text, 'the report is the same')
  })
})
