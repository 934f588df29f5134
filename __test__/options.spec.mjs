// Options are checked before anything is serialised. A value whose children are shared, 40 levels
// deep (2^40 leaves as JSON: days to serialise), is put under an unknown key and under every known
// key of every public function, at every depth of its options table (js/options.js): each call
// returns at once (unknown keys, and known keys that take an object) or throws a TypeError naming
// the option. Unknown keys holding cycles, proxies and throwing getters are never read.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const aiSdk = require('../js/ai-sdk.js')
const openai = require('../js/openai.js')
const openclaw = require('../js/openclaw.js')
const { OPTIONS } = require('../js/options.js')

function shared(depth) {
  let v = { leaf: 'x' }
  for (let i = 0; i < depth; i++) v = { a: v, b: v }
  return v
}
const SHARED = shared(40)

const MESSAGES = [
  { role: 'user', content: '读取 a.txt', timestamp: 1 },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1|fc', name: 'read', arguments: { path: 'a.txt' } }], stopReason: 'toolUse', timestamp: 2 },
]
const BLOCKS = [{ type: 'text', text: 'hi' }]
const dir = mkdtempSync(join(tmpdir(), 'th-options-'))
const SESSION = join(dir, 's.jsonl')
writeFileSync(SESSION, '{"type":"session","id":"s"}\n')
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

/** `base` plus `o`'s own properties, getters copied as getters (never invoked here). */
const withBase = (base, o) => Object.defineProperties({ ...base }, Object.getOwnPropertyDescriptors(o))

// Each public function that takes an options object: its table, the name of its options argument
// in error messages, and a call with given options.
const FUNCTIONS = {
  sanitizeSessionHistory: [OPTIONS.sanitizeSessionHistory, 'params', (o) => th.sanitizeSessionHistory(withBase({ messages: MESSAGES, provider: 'anthropic' }, o))],
  applyGoogleTurnOrderingFix: [OPTIONS.applyGoogleTurnOrderingFix, 'params', (o) => th.applyGoogleTurnOrderingFix(withBase({ messages: MESSAGES }, o))],
  resolveTranscriptPolicy: [OPTIONS.resolveTranscriptPolicy, 'params', (o) => th.resolveTranscriptPolicy(withBase({ provider: 'openrouter', modelApi: 'openai-completions', modelId: 'mistralai/mistral-large' }, o))],
  limitHistoryTurns: [OPTIONS.limitHistoryTurns, 'options', (o) => th.limitHistoryTurns([...MESSAGES, ...MESSAGES], 1, o)],
  repairToolCallInputs: [OPTIONS.repairToolCallInputs, 'options', (o) => th.repairToolCallInputs(MESSAGES, o)],
  sanitizeToolCallInputs: [OPTIONS.sanitizeToolCallInputs, 'options', (o) => th.sanitizeToolCallInputs(MESSAGES, o)],
  repairToolUseResultPairing: [OPTIONS.repairToolUseResultPairing, 'options', (o) => th.repairToolUseResultPairing(MESSAGES, o)],
  sanitizeToolUseResultPairing: [OPTIONS.sanitizeToolUseResultPairing, 'options', (o) => th.sanitizeToolUseResultPairing(MESSAGES, o)],
  sanitizeSessionMessagesImages: [OPTIONS.images, 'options', (o) => th.sanitizeSessionMessagesImages(MESSAGES, 'label', o)],
  sanitizeContentBlocksImages: [OPTIONS.images, 'options', (o) => th.sanitizeContentBlocksImages(BLOCKS, 'label', o)],
  sanitizeImageBlocks: [OPTIONS.images, 'options', (o) => th.sanitizeImageBlocks(BLOCKS, 'label', o)],
  sanitizeToolResultImages: [OPTIONS.images, 'options', (o) => th.sanitizeToolResultImages({ content: BLOCKS }, 'label', o)],
  stripThoughtSignatures: [OPTIONS.thoughtSignatures, 'options', (o) => th.stripThoughtSignatures(BLOCKS, o)],
  repairSessionFile: [OPTIONS.repairSessionFile, 'options', (o) => th.repairSessionFile(SESSION, withBase({ dryRun: true }, o))],
  cleanResponse: [OPTIONS.cleanResponse, 'options', (o) => th.cleanResponse('好的 <think>x</think>', o)],
  ResponseStreamCleaner: [OPTIONS.cleanResponse, 'options', (o) => new th.ResponseStreamCleaner(o).finish()],
  stripMinimaxToolCallXml: [OPTIONS.scrubber, 'options', (o) => th.stripMinimaxToolCallXml('minimax:tool_call `<invoke>x</invoke>`', o)],
  stripModelSpecialTokens: [OPTIONS.scrubber, 'options', (o) => th.stripModelSpecialTokens('a `<|x|>` b', o)],
  stripDowngradedToolCallText: [OPTIONS.scrubber, 'options', (o) => th.stripDowngradedToolCallText('`[Tool Call: f]`', o)],
  stripPlainTextToolCallBlocks: [OPTIONS.plainTextToolCalls, 'options', (o) => th.stripPlainTextToolCallBlocks('`[tool:f] {}`', o)],
  sanitizeUserFacingText: [OPTIONS.userFacingText, 'options', (o) => th.sanitizeUserFacingText('<final>x</final>', o)],
  ConversationContextStreamCleaner: [OPTIONS.conversationContextStream, 'options', (o) => new th.ConversationContextStreamCleaner(o).finish()],
  createResponseSanitizer: [OPTIONS.sanitizerConfig, 'config', (o) => th.createResponseSanitizer(o).sanitize('minimax/MiniMax-M2', 'hi')],
  toolCallRecovery: [OPTIONS.toolCallRecovery, 'options', (o) => aiSdk.toolCallRecovery(o)],
  transcriptHygiene: [OPTIONS.transcriptHygiene, 'options', (o) => aiSdk.transcriptHygiene(o)],
  cleanChatCompletion: [OPTIONS.chatCompletion, 'options', (o) => openai.cleanChatCompletion({ model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '好的 <think>x</think>' }, finish_reason: 'stop' }] }, o)],
  createOpenClawPlugin: [OPTIONS.openclawPlugin, 'config', (o) => (openclaw.createOpenClawPlugin(o).register({ on() {} }), 'registered')],
  cleanChatCompletionStream: [OPTIONS.chatCompletion, 'options', (o) => (openai.cleanChatCompletionStream((async function* () {})(), o), 'checked')],
}

/**
 * Every place in `schema` a value can go: [path, options holding SHARED there, whether the type
 * there takes an object]. Objects and maps are entered: their own keys get SHARED in turn.
 */
function* places(schema, path, wrap) {
  for (const [k, type] of Object.entries(schema)) {
    const takesObject = type.schema !== undefined || type.map !== undefined
    yield [`${path}.${k}`, wrap({ [k]: SHARED }), takesObject]
    if (type.schema) yield* places(type.schema, `${path}.${k}`, (o) => wrap({ [k]: o }))
    if (type.map) {
      yield [`${path}.${k}.minimax`, wrap({ [k]: { minimax: SHARED } }), type.map.schema !== undefined]
      if (type.map.schema) yield* places(type.map.schema, `${path}.${k}.minimax`, (o) => wrap({ [k]: { minimax: o } }))
    }
  }
}

const cyclic = { name: 'x' }
cyclic.self = cyclic
const UNKNOWN = {
  'a shared 40-level object': SHARED,
  'a cycle': cyclic,
  'a proxy that throws on every trap': new Proxy({}, { get: () => { throw new Error('trap') }, ownKeys: () => { throw new Error('trap') } }),
  'a 100,000-deep array': Array.from({ length: 100_000 }).reduce((v) => [v], []),
}

for (const [name, [schema, argName, call]] of Object.entries(FUNCTIONS)) {
  test(`${name}: a shared 40-level object under each known option is a TypeError naming it (or accepted where an object goes); unknown keys cost nothing`, { timeout: 30_000 }, () => {
    const plain = JSON.stringify(call({}))
    for (const [what, v] of Object.entries(UNKNOWN)) {
      const withGetter = Object.defineProperty({ unknownOption: v }, 'unknownGetter', { get: () => { throw new Error('read') }, enumerable: true })
      assert.equal(JSON.stringify(call(withGetter)), plain, `${name}: ${what} under an unknown key changes nothing`)
    }
    let n = 0
    for (const [path, options, takesObject] of places(schema, argName, (o) => o)) {
      n++
      if (takesObject) {
        assert.doesNotThrow(() => call(options), `${path} takes an object`)
      } else {
        assert.throws(() => call(options), (err) => err instanceof TypeError && err.message.startsWith(`${path}: expected `), `${path}: a TypeError naming it`)
      }
    }
    assert.ok(n >= Object.keys(schema).length)
  })
}

test('a throwing getter on a known option is a TypeError naming it', () => {
  const params = Object.defineProperty({ messages: MESSAGES }, 'provider', { get: () => { throw new Error('nope') }, enumerable: true })
  assert.throws(() => th.sanitizeSessionHistory(params), { name: 'TypeError', message: 'params.provider: could not be read (nope)' })
})

test('wrong-typed options the issue names: maxBytes "5", policy.sanitizeToolCallIds "yes"', () => {
  assert.throws(() => th.sanitizeSessionHistory({ messages: MESSAGES, maxBytes: '5' }), { name: 'TypeError', message: 'params.maxBytes: expected a number, got "5"' })
  assert.throws(() => th.sanitizeSessionHistory({ messages: MESSAGES, policy: { sanitizeToolCallIds: 'yes' } }), { name: 'TypeError', message: 'params.policy.sanitizeToolCallIds: expected a boolean, got "yes"' })
  assert.throws(() => th.cleanResponse('x', { tools: [SHARED] }), { name: 'TypeError', message: /^options\.tools\[0\]: could not be serialised as JSON \(more than 1,000,000 values\)/ })
})

test('a Set of tool names is accepted where a list of names goes, as OpenClaw passes it', () => {
  const m = [{ role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'write', arguments: {} }], stopReason: 'toolUse' }]
  const a = th.repairToolCallInputs(m, { allowedToolNames: new Set(['read']) })
  const b = th.repairToolCallInputs(m, { allowedToolNames: ['read'] })
  assert.deepEqual(a, b)
  assert.equal(a.droppedToolCalls, 1)
})

test('the scalar functions check their arguments before using them', () => {
  const deep = Array.from({ length: 100_000 }).reduce((v) => ({ v }), {})
  assert.throws(() => th.sanitizeToolCallId('a|b', deep), { name: 'TypeError', message: /^mode: expected/ })
  assert.throws(() => th.isValidCloudCodeAssistToolId('ab', SHARED), { name: 'TypeError', message: /^mode: expected/ })
  assert.throws(() => th.sanitizeToolCallIdsForCloudCodeAssist(MESSAGES, SHARED), { name: 'TypeError', message: /^mode: expected/ })
  assert.throws(() => th.limitHistoryTurns(MESSAGES, SHARED), { name: 'TypeError', message: /^limit: expected a number/ })
  assert.throws(() => th.buildServerToolFollowup({ original: { messages: [] }, assistant: { role: 'assistant' }, toolResults: [] }, { onMissing: SHARED }), TypeError)
  assert.throws(() => th.recoverToolBlocks([], { tools: [SHARED] }), { name: 'TypeError', message: /more than 1,000,000 values/ })
  assert.throws(() => th.configureImageCache({ maxBytes: SHARED }), TypeError)
  assert.throws(() => th.stripReasoningTagsFromText('x', { mode: SHARED }), TypeError)
})

test('a tools array is read once per array: a new element object or a bad element put in later is seen, a tool changed in place is not', () => {
  const tool = (name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } } })
  const reply = '好的。{"name": "get_weather", "arguments": {"city": "北京"}}'
  const calls = (tools) => th.cleanResponse(reply, { tools }).toolCalls.map((c) => c.function.name)
  const list = [tool('read_file')]
  assert.deepEqual(calls(list), [])
  list[0] = tool('get_weather')
  assert.deepEqual(calls(list), ['get_weather'])
  list.push(tool('bash'))
  assert.deepEqual(calls(list), ['get_weather'])
  // The documented choice: the same element objects are the same tools.
  list[0].function.name = 'renamed_in_place'
  assert.deepEqual(calls(list), ['get_weather'])
  assert.deepEqual(calls([tool('renamed_in_place')]), [])
  const bad = { name: 'TypeError', message: 'options.tools[2]: expected a tool definition object, got number' }
  list.push(5)
  assert.throws(() => th.cleanResponse(reply, { tools: list }), bad)
  assert.throws(() => new th.ResponseStreamCleaner({ tools: list }), bad)
  assert.throws(() => th.cleanResponse(reply, { tools: [list[0], null] }), { name: 'TypeError', message: 'options.tools[1]: expected a tool definition object, got null' })
  list.pop()
  assert.deepEqual(calls(list), ['get_weather'])
})
