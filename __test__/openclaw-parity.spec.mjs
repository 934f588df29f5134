// The OpenClaw oracle: this package against OpenClaw 2026.3.23-2's own functions, loaded in this
// process by benchmark/openclaw.mjs (a module-customization hook exports the bundle's internals).
// CI installs the reference first (`sh scripts/install-reference.sh`: npm, pinned by
// benchmark/package-lock.json, kept in benchmark/node_modules); without it every test here skips
// and says how to install it. Loading the bundle takes a few seconds.
//   - the four outbound scrubbers on random replies built from marker fragments (tags in any
//     case, code fences, JSON-ish arguments, lone surrogates, multi-byte and whitespace
//     characters) must give identical output;
//   - sanitizeSessionHistory on generated transcripts and on the edge cases below, for each
//     provider family, must give deep-equal messages.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { loadOpenClaw, installHint } from '../benchmark/openclaw.mjs'
import { makeTranscript } from './fixtures/transcripts.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
// Our 2026.3.23 mode against that release: pinned, whatever the package default is.
th.setOpenClawVersion('2026.3.23')
const ref = await loadOpenClaw()
const oc = ref && ref.fns

const FRAGMENTS = [
  '<think>', '</think>', '<thinking>', '</thinking >', '< think>', '</ THOUGHT>', '<antthinking a="b">', '<final>', '</final>', '< final x>', '<Final', '<thinkx>', '<thinké>',
  '<minimax:tool_call>', '</minimax:tool_call>', '<MINIMAX:TOOL_CALL>', 'minimax:tool_call', '<invoke name="f">', '<invoke>', '<INVOKE', '</invoke>', '</Invoke>', '<invoker>', '<parameter name="p">',
  '<|assistant|>', '<|', '|>', '<｜', '｜>', '<｜begin▁of▁sentence｜>', '  ', '   ', ' ', '\t',
  '[Tool Call: f (ID: 1)]', '[tool call:', ']', '[', 'Arguments: ', 'arguments:', 'ARGUMENTS', '{', '}', '[1,', '"', '\\', '[Tool Result for ID 1]', '[TOOL RESULT FOR ID', '[Tool ', '[tool x', '[Historical context: x]', '[historical context:',
  '```', '```js', '~~~', '`', '``', '\n', '\r', '\r\n', '\n\n', 'a', 'bc', '北京', '😀', '\u00a0', '\u2028', '\ufeff', '\u0085', '\u3000', 'x y', '\uD800', '\uDC00', '<', '>', '/', ':',
]

test('the scrubbers match openclaw 2026.3.23-2 on random marker-built replies', (t) => {
  if (!oc) {
    t.skip(installHint())
    return
  }
  let seed = 20260323
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % n
  }
  const EXACT = { codeAware: false }
  const pairs = [
    // OpenClaw's exact bytes are asked for: by default these leave markup inside code as written.
    ['stripMinimaxToolCallXml', oc.stripMinimaxToolCallXml, (s) => th.stripMinimaxToolCallXml(s, EXACT)],
    ['stripModelSpecialTokens', oc.stripModelSpecialTokens, (s) => th.stripModelSpecialTokens(s, EXACT)],
    ['stripDowngradedToolCallText', oc.stripDowngradedToolCallText, (s) => th.stripDowngradedToolCallText(s, EXACT)],
    ['stripThinkingTagsFromText', (s) => oc.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'both' }), (s) => th.stripThinkingTagsFromText(s, EXACT)],
    ['preserve/none', (s) => oc.stripReasoningTagsFromText(s, { mode: 'preserve', trim: 'none' }), (s) => th.stripReasoningTagsFromText(s, { mode: 'preserve', trim: 'none', ...EXACT })],
    ['strict/start', (s) => oc.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'start' }), (s) => th.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'start', ...EXACT })],
  ]
  for (let i = 0; i < 20_000; i++) {
    let s = ''
    for (let k = rnd(30); k > 0; k--) s += FRAGMENTS[rnd(FRAGMENTS.length)]
    for (const [name, theirs, ours] of pairs) assert.equal(ours(s), theirs(s), `${name}(${JSON.stringify(s)})`)
  }
})

const POLICIES = [
  { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
]

// Edge cases where this package once differed from OpenClaw, each run through every policy.
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
const EDGE_CASES = {
  'an aborted turn, its call answered, then a user turn': [
    { role: 'user', content: '读取文件', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }], stopReason: 'aborted', usage, timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: [{ type: 'text', text: '内容' }], isError: false, timestamp: 3 },
    { role: 'user', content: '继续', timestamp: 4 },
  ],
  'usage with fields beyond the standard numbers': [
    { role: 'user', content: 'hi', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'text', text: '你好' }], stopReason: 'stop', usage: { ...usage, cacheWrite1h: 7, reasoning: 3, cost: { ...usage.cost, totalTokens: 15 } }, timestamp: 2 },
  ],
  'a history of one orphan reasoning block': [
    { role: 'assistant', content: [{ type: 'thinking', thinking: '', thinkingSignature: JSON.stringify({ id: 'rs_1', type: 'reasoning' }) }], stopReason: 'stop', usage, timestamp: 1 },
  ],
  'ids that differ only in a lone surrogate': [
    { role: 'user', content: 'x', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'a\uD800', name: 'read', arguments: {} }, { type: 'toolCall', id: 'a\uD801', name: 'read', arguments: {} }], stopReason: 'toolUse', usage, timestamp: 2 },
    { role: 'toolResult', toolCallId: 'a\uD800', toolName: 'read', content: [{ type: 'text', text: 'one' }], isError: false, timestamp: 3 },
    { role: 'toolResult', toolCallId: 'a\uD801', toolName: 'read', content: [{ type: 'text', text: 'two' }], isError: false, timestamp: 4 },
  ],
}

test('sanitizeSessionHistory matches openclaw 2026.3.23-2 on generated transcripts and edge cases, for every provider family', async (t) => {
  if (!oc) {
    t.skip(installHint())
    return
  }
  const cases = { 'generated, 300 messages': makeTranscript(300), ...EDGE_CASES }
  // A session that already has the Google bootstrap marker: OpenClaw then logs nothing.
  const sessionManager = { getEntries: () => [{ type: 'custom', customType: 'google-turn-ordering-bootstrap', data: {} }], appendCustomEntry() {} }
  // The one documented difference on these inputs: the bootstrap turn takes the first message's
  // timestamp here, the clock in OpenClaw.
  const clockless = (messages) => messages.map((m) => (m.content === '(session bootstrap)' ? { ...m, timestamp: 0 } : m))
  for (const [name, messages] of Object.entries(cases)) {
    for (const policy of POLICIES) {
      const theirs = await oc.sanitizeSessionHistory({ messages, ...policy, sessionManager })
      const ours = th.sanitizeSessionHistory({ messages, ...policy, sessionManager })
      assert.deepEqual(clockless(ours), clockless(theirs), `${name} / ${policy.provider}`)
    }
  }
})
