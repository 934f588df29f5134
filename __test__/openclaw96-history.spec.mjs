// sanitizeSessionHistory in 2026.9.6 mode against the OpenClaw 2026.9.6 oracle, with the
// 2026.3.23-2 oracle beside it. Every case runs through both releases and through this package
// in `openclawVersion: '2026.9.6'` mode:
//   - a case tagged with no difference is one where the two releases agree (checked: an untagged
//     case the releases disagree on is an unlisted difference and fails), and this package must
//     give the very same messages;
//   - a case tagged with differences exercises them (checked: the releases must disagree on it);
//     when every tag is `done` this package must match 2026.9.6, and while one is `todo` it must
//     not yet (so a difference finished without updating DIFFERENCES fails too).
// DIFFERENCES is the list of everything that changed in that function between the two releases,
// read from both bundles (../shared/reference/openclaw-2026.9.6.md §3–§6 has them rule by rule),
// each `done` or `todo` by name: nothing is skipped silently.
//
// The oracles' answers are memoized by question (benchmark/oracle-memo.mjs): importing
// 2026.9.6's transcript pass alone costs ~6 s of CPU, so it is asked once per change of cases.
// Without the references (scripts/install-reference.sh) or Node 24 (scripts/runtimes.sh) the test
// skips and says what to install.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { runOpenClaw96, missing } from '../benchmark/openclaw-2026.9.6.mjs'
import { loadOpenClaw, invoke, installHint } from '../benchmark/openclaw.mjs'
import { memoized } from '../benchmark/oracle-memo.mjs'
import { makeTranscript } from './fixtures/transcripts.mjs'
import { encodePngRows } from './fixtures/png.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')

/** Every difference in sanitizeSessionHistory between 2026.3.23-2 and 2026.9.6, by name. */
export const DIFFERENCES = {
  'policy-plugins': ['done', 'policy from provider plugins with a modelApi fallback (new matrix, new fields)'],
  'order-ids-after-pairing': ['done', 'tool-call ids rewritten after pairing, not inside the image pass'],
  'drop-blank-user': ['done', 'blank user text blocks removed; a user turn left empty is dropped'],
  'drop-delivery-mirror': ['done', 'OpenClaw delivery-mirror / gateway-injected assistants dropped'],
  'drop-stream-error': ['done', 'stream-error placeholder assistants (error, empty) dropped'],
  'no-reply': ['done', 'NO_REPLY assistant text removed; a turn left empty is dropped'],
  'assistant-internal-metadata': ['done', 'assistant text stripped of OpenClaw runtime-context / inbound-metadata blocks'],
  'assistant-media-blocks': ['done', 'image/audio/video/attachment blocks removed from assistant turns'],
  'length-reasoning-only': ['done', 'a stopReason "length" turn holding only reasoning is dropped'],
  'images-ignore-mode': ['done', 'the image pass drops blank text (every role) and thought signatures whatever sanitizeMode says'],
  'empty-content-placeholder': ['done', 'a tool result / user left empty gets "[empty content omitted]"'],
  'image-missing-data': ['done', 'an image block without data/mimeType becomes a text note'],
  'drop-thinking-latest-kept': ['done', 'dropThinkingBlocks keeps the latest assistant, drops redacted_thinking, leaves "[assistant reasoning omitted]"'],
  'invalid-thinking-signatures': ['done', 'unsigned thinking stripped for signed-thinking providers (latest turn exempt)'],
  'compaction-stale-signatures': ['done', 'thinking signatures older than the latest compaction removed'],
  'drop-reasoning-from-history': ['done', 'OpenAI-compatible chat drops reasoning except the current tool turn'],
  'tool-name-dots-colons': ['done', 'tool names with . and : pass the name check'],
  'completed-call-removed-tool': ['done', 'a completed call to a tool no longer allowed is kept'],
  'null-entries': ['done', 'null entries removed'],
  'pairing-frames': ['done', 'pairing frames end at the next assistant with tool calls'],
  'pairing-per-occurrence': ['done', 'a reused id is paired per occurrence'],
  'pairing-errored-dropped': ['done', 'an errored/aborted tool turn is removed with its results'],
  'pairing-result-aliases': ['done', 'result ids trimmed and read from every alias field'],
  'kimi-native-ids': ['done', "Kimi's functions.NAME:IDX ids kept in strict mode"],
  'anthropic-native-ids': ['done', 'toolu_ ids kept when the policy says so'],
  'thinking-turn-provider-owned': ['done', 'a turn with signed thinking keeps its tool calls and ids verbatim (provider-owned replay)'],
  'responses-reasoning-kept': ['done', 'OpenAI Responses: reasoning without a following block is kept (downgradeOpenAIReasoningBlocks is gone)'],
  'responses-stale-reasoning': ['done', 'OpenAI Responses: reasoning from before the latest model switch (on the current branch) dropped, text signatures reduced to their phase'],
  'responses-pairing': ['done', 'OpenAI Responses: its own pairing step; a synthetic result reads "aborted"'],
  'responses-id-normalisation': ['done', 'OpenAI Responses: call_/fc_ ids over 64 characters or with odd characters shortened with a hash'],
  'inter-session-marker': ['done', 'inter-session marker text: isUser=false and an explanation line'],
  'partial-json': ['done', 'a tool call still carrying partialJson is dropped'],
  'sessions-spawn-not-redacted': ['done', 'sessions_spawn attachment content is no longer redacted here'],
  'legacy-result-without-id': ['done', 'a result without an id adopts the only call id'],
  'duplicate-results-same-turn': ['done', 'a second result for the same call in one turn is dropped'],
  'result-alias-fields': ['done', 'one primary result id written to every alias field (call_id, tool_call_id, …)'],
  'unpadded-base64': ['done', 'unpadded base64 image data accepted and re-padded'],
  'image-failure-text': ['done', 'the note for an image that cannot be processed names Rastermill\'s error'],
  'image-size-caps': ['done', '10 MiB decoded input and 25 MP caps before decoding'],
  'usage-context-kept': ['done', 'usage snapshots keep contextUsage'],
  'stale-usage-rule': ['done', 'stale usage before a compaction: timestamps decide when both parse'],
  'google-ordering-any-api': ['done', 'Google turn ordering for every policy that asks for it, bootstrap marker from the Google plugin'],
  'anthropic-turn-merge': ['done', 'validateAnthropicTurns (run after this pass) merges consecutive assistants, strips dangling calls of any type, keeps string user contents'],
  'anthropic-result-aliases': ['done', 'validateAnthropicTurns answers calls through every id field of a result block (toolCallId, tool_use_id, tool_call_id, callId, call_id) and names a result message\'s tool by `name` when it has no `toolName`'],
  'history-limit-hysteresis': ['done', 'limitHistoryTurns (run after this pass) keeps leading summaries and cuts only past 1.5x the limit'],
  'compaction-checkpoint': ['done', 'a compaction checkpoint (providerReplay) re-indexed to the blocks left, or removed, when a rule removes or rewrites its turn\'s blocks; its index read with JS Number rules'],
}

const USAGE = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

// Policies given explicitly, so a pipeline case does not depend on policy resolution (a
// difference of its own, `policy-plugins`, checked on the triples below).
const BASE = { repairToolUseResultPairing: true, preserveSignatures: false, sanitizeThinkingSignatures: false, dropThinkingBlocks: false, applyGoogleTurnOrdering: false, validateGeminiTurns: false, validateAnthropicTurns: false, allowSyntheticToolResults: false }
const P = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', policy: { ...BASE, sanitizeMode: 'full', sanitizeToolCallIds: true, toolCallIdMode: 'strict', preserveSignatures: true, validateAnthropicTurns: true, allowSyntheticToolResults: true } },
  chat: { provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b', policy: { ...BASE, sanitizeMode: 'images-only', sanitizeToolCallIds: true, toolCallIdMode: 'strict', dropReasoningFromHistory: true } },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', policy: { ...BASE, sanitizeMode: 'full', sanitizeToolCallIds: true, toolCallIdMode: 'strict', sanitizeThoughtSignatures: { allowBase64Only: true, includeCamelCase: true }, applyGoogleTurnOrdering: true, validateGeminiTurns: true, allowSyntheticToolResults: true } },
  responses: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5', policy: { ...BASE, sanitizeMode: 'images-only', sanitizeToolCallIds: false } },
}
const withPolicy = (name, extra) => ({ ...P[name], policy: { ...P[name].policy, ...extra } })
// Model snapshots a session holds (custom entries), and Responses signatures.
const snapshot = (timestamp, provider, modelApi, modelId) => ({ customType: 'model-snapshot', data: { timestamp, provider, modelApi, modelId } })
const CLAUDE_AT_1 = snapshot(1, 'anthropic', 'anthropic-messages', 'claude-sonnet-4-5')
const gptAt = (timestamp) => snapshot(timestamp, 'openai', 'openai-responses', 'gpt-5')
const rsSig = (id) => JSON.stringify({ id, type: 'reasoning' })
const phased = (t, textSignature) => ({ type: 'text', text: t, textSignature })
const msgSig = (id, phase) => JSON.stringify({ v: 1, id, phase })
const cp = (type, replayIndex) => ({ type, replayIndex, summary: '早先对话的摘要' })

// The official external provider plugins a 2026.9.6 user of these providers has installed
// (benchmark/oc96-plugins): the oracle runs them; this package knows their policies by provider
// (Qwen's plugin, for its three providers, has none: the fallback by API applies).
const QWEN = '@openclaw/qwen-provider@2026.9.4'
const PROVIDER_PLUGINS = { mistral: '@openclaw/mistral-provider@2026.9.5', deepseek: '@openclaw/deepseek-provider@2026.9.5', qwen: QWEN, 'qwen-token-plan': QWEN, 'bailian-token-plan': QWEN }
const pluginOf = (provider) => PROVIDER_PLUGINS[typeof provider === 'string' ? provider.trim().toLowerCase() : '']
const withPlugin = (params) => (pluginOf(params.provider) ? { ...params, providerPlugin: pluginOf(params.provider) } : params)
// Catalog plugins the oracle cannot install (ClawHub only): this package applies their policies
// (unit-tested in src/transcript/v2026_9/policy.rs), so here 2026.9.6 without the plugin is
// compared with what a caller without it does: resolve with no provider.
const CLAWHUB_ONLY = new Set(['amazon-bedrock', 'anthropic-vertex', 'zai', 'z.ai', 'moonshot', 'kimi', 'kimi-coding', 'kimi-code'])
const withoutPlugin = (provider) => (CLAWHUB_ONLY.has(typeof provider === 'string' ? provider.trim().toLowerCase() : '') ? undefined : provider)

const user = (text, timestamp, extra = {}) => ({ role: 'user', content: text, timestamp, ...extra })
const said = (content, timestamp, extra = {}) => ({ role: 'assistant', content, stopReason: 'stop', usage: USAGE, timestamp, ...extra })
const call = (id, name = 'read', args = { path: 'a.md' }) => ({ type: 'toolCall', id, name, arguments: args })
const calls = (list, timestamp, extra = {}) => ({ role: 'assistant', content: list, stopReason: 'toolUse', usage: USAGE, timestamp, ...extra })
const result = (id, text, timestamp, extra = {}) => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, timestamp, ...extra })
const text = (t) => ({ type: 'text', text: t })
const thinking = (t, sig) => ({ type: 'thinking', thinking: t, ...(sig === undefined ? {} : { thinkingSignature: sig }) })

// A 1×1 PNG without its padding (2026.9.6 re-pads it; 2026.3.23 calls it invalid base64).
// A PNG whose header declares 6000×5000 (30 MP) over one row of pixels.
const OVER_25_MP = encodePngRows(1, 1, { row: () => Buffer.from([0, 0, 0]), declared: { width: 6000, height: 5000 } }).toString('base64')
const PIXEL_UNPADDED = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg'
// A PNG signature and the IHDR of a 1600×1200 image, nothing more: its header reads, its pixels do not.
const PNG_HEADER_ONLY = encodePngRows(1, 1, { row: () => Buffer.from([0, 0, 0]), declared: { width: 1600, height: 1200 } }).subarray(0, 33).toString('base64')

/**
 * Hand-written cases, one or more per difference: [name, params key or params, messages,
 * differences, and maybe the session: { entries, branch }] (custom entries a session manager gives
 * from getEntries() and, when it differs, getBranch()).
 */
const HAND = [
  ['plain chat, Chinese', 'anthropic', [user('你好', 1), said([text('你好！有什么可以帮你？')], 2), user('北京天气', 3)], []],
  ['a clean tool round', 'chat', [user('读 a.md', 1), calls([call('call1')], 2), result('call1', '内容', 3), said([text('读完了')], 4)], []],
  ['blank user text block', 'anthropic', [user([text('  '), text('问题')], 1), said([text('答')], 2)], ['images-ignore-mode']],
  ['user turn of blank text only', 'chat', [user('q', 1), said([text('a')], 2), user([text(' ')], 3), user('next', 4)], ['drop-blank-user']],
  ['delivery mirror assistant', 'chat', [user('q', 1), said([text('a')], 2), said([text('a')], 3, { provider: 'openclaw', model: 'delivery-mirror', usage: ZERO }), user('n', 4)], ['drop-delivery-mirror']],
  ['stream error placeholder', 'chat', [user('q', 1), said([text('[assistant turn failed before producing content]')], 2, { stopReason: 'error', errorMessage: 'socket hang up' }), user('again', 3)], ['drop-stream-error']],
  ['NO_REPLY turn', 'chat', [user('q', 1), said([text('NO_REPLY')], 2), user('n', 3)], ['no-reply']],
  ['NO_REPLY string content', 'chat', [user('q', 1), said('NO_REPLY', 2), user('n', 3)], ['no-reply']],
  ['blank string assistant', 'chat', [user('q', 1), said('   ', 2), user('n', 3)], ['images-ignore-mode']],
  ['runtime context in assistant text', 'chat', [user('q', 1), said([text('答案\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n内部\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>')], 2), user('n', 3)], ['assistant-internal-metadata']],
  ['inbound metadata echoed by the assistant', 'chat', [user('q', 1), said([text('Conversation info: ⟦openclaw:ctx⟧\n```json\n{"chat":"群聊"}\n```\n\n好的，马上处理。'), text('[Mon 2026-09-07 10:00] 已完成')], 2), user('n', 3)], ['assistant-internal-metadata']],
  ['silent reply under runtime context', 'chat', [user('q', 1), said([text('<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n子任务完成\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nNO_REPLY')], 2), user('n', 3)], ['assistant-internal-metadata']],
  ['runtime-context markers mentioned inline stay', 'chat', [user('q', 1), said([text('OpenClaw 用 `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>` 和 `<<<END_OPENCLAW_INTERNAL_CONTEXT>>>` 包住内部上下文，模型不应复述。见 [Mon 2026-09-07 10:00] 的记录。')], 2), user('n', 3)], []],
  ['assistant image block', 'chat', [user('画一只猫', 1), said([text('好的'), { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }], 2)], ['assistant-media-blocks']],
  ['length-cut reasoning only', 'chat', [user('q', 1), said([thinking('想了很久')], 2, { stopReason: 'length' }), user('n', 3)], ['length-reasoning-only']],
  ['images-only mode, blank text', 'chat', [user('q', 1), said([text(''), text('答')], 2)], ['images-ignore-mode']],
  ['empty tool result content', 'anthropic', [user('q', 1), calls([call('call1')], 2), { role: 'toolResult', toolCallId: 'call1', toolName: 'read', content: [], isError: false, timestamp: 3 }, said([text('ok')], 4)], ['empty-content-placeholder']],
  ['image block without mimeType', 'chat', [user([text('看图'), { type: 'image', data: 'iVBORw0KGgo=' }], 1)], ['image-missing-data']],
  ['dropThinkingBlocks, two turns', withPolicy('anthropic', { dropThinkingBlocks: true }), [user('q', 1), said([thinking('a', 'sig1'), text('x')], 2), user('n', 3), said([thinking('b', 'sig2'), text('y')], 4)], ['drop-thinking-latest-kept']],
  ['dropThinkingBlocks, thinking-only turn', withPolicy('anthropic', { dropThinkingBlocks: true }), [user('q', 1), said([thinking('a', 'sig1')], 2), user('n', 3), said([text('y')], 4)], ['drop-thinking-latest-kept']],
  ['unsigned thinking, Anthropic', 'anthropic', [user('q', 1), said([thinking('未签名'), text('x')], 2), user('n', 3), said([text('y')], 4)], ['invalid-thinking-signatures']],
  ['signatures before a compaction', 'anthropic', [user('q', 1), said([thinking('a', 'sig1'), text('x')], 2), { role: 'compactionSummary', summary: 'earlier', tokensBefore: 100, timestamp: 3 }, user('n', 4), said([text('y')], 5)], ['compaction-stale-signatures']],
  ['reasoning in chat history', 'chat', [user('q', 1), said([thinking('推理'), text('x')], 2), user('n', 3), said([text('y')], 4)], ['drop-reasoning-from-history']],
  ['tool name with dots and colons', 'chat', [user('q', 1), calls([call('call1', 'mcp.fs:read')], 2), result('call1', 'r', 3), said([text('ok')], 4)], ['tool-name-dots-colons']],
  ['completed call to a removed tool', { ...P.chat, allowedToolNames: ['write'] }, [user('q', 1), calls([call('call1')], 2), result('call1', 'r', 3), said([text('ok')], 4)], ['completed-call-removed-tool']],
  ['inter-session string with an old header', 'anthropic', [user('[Inter-session message] sourceSession=agent:main:x sourceTool=sessions_send\n旧格式', 1, { provenance: { kind: 'inter_session', sourceSessionKey: 'agent:main:x', sourceTool: 'sessions_send' } }), said([text('ok')], 2)], ['inter-session-marker']],
  ['inter-session turn without text', 'chat', [user([{ type: 'file', name: 'a.txt' }], 1, { provenance: { kind: 'inter_session', sourceChannel: ' slack ' } }), said([text('ok')], 2)], ['inter-session-marker']],
  ['undecodable image', 'chat', [user([text('看图'), { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }], 1), said([text('看不到')], 2)], ['image-failure-text']],
  ['an image whose header reads but whose pixels do not', 'chat', [user([text('看这张图'), { type: 'image', data: PNG_HEADER_ONLY, mimeType: 'image/png' }], 1), said([text('看不到')], 2)], ['image-failure-text']],
  ['inter-session string, long', 'chat', [user('转发：' + '很长的内容。'.repeat(1000), 1, { provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } }), said([text('ok')], 2)], ['inter-session-marker']],
  ['partialJson on a call', 'chat', [user('q', 1), calls([{ ...call('call1'), partialJson: '{"path":"a' }], 2), result('call1', 'r', 3), said([text('ok')], 4)], ['partial-json']],
  ['sessions_spawn attachments', 'chat', [user('q', 1), calls([call('call1', 'sessions_spawn', { task: 't', attachments: [{ name: 'a.txt', content: '机密' }] })], 2), result('call1', 'r', 3), said([text('ok')], 4)], ['sessions-spawn-not-redacted']],
  ['result without an id', 'chat', [user('q', 1), calls([call('call1')], 2), { role: 'toolResult', toolName: 'read', content: [text('r')], isError: false, timestamp: 3 }, user('n', 4)], ['legacy-result-without-id']],
  ['two results for one call', 'responses', [user('q', 1), calls([call('call1')], 2), result('call1', 'one', 3), result('call1', 'two', 4)], ['duplicate-results-same-turn']],
  ['result with snake_case id only', 'google', [user('q', 1), calls([call('call_1|fc_1')], 2), { role: 'toolResult', tool_call_id: 'call_1|fc_1', toolName: 'read', content: [text('r')], isError: false, timestamp: 3 }, said([text('ok')], 4)], ['result-alias-fields']],
  ['unpadded base64 image', 'chat', [user([text('图'), { type: 'image', data: 'iVBORw0KGgo', mimeType: 'image/png' }], 1)], ['unpadded-base64']],
  ['unpadded base64 of a whole image', 'chat', [user([text('一像素'), { type: 'image', data: PIXEL_UNPADDED, mimeType: 'image/png' }], 1)], ['unpadded-base64']],
  ['an image header over 25 megapixels (the 10 MiB cap: src/image/release.rs)', 'chat', [user([text('大图'), { type: 'image', data: OVER_25_MP, mimeType: 'image/png' }], 1)], ['image-size-caps']],
  ['base64 with stray bits in its last character', 'chat', [user([text('图'), { type: 'image', data: 'iVBORw0KGgp', mimeType: 'image/png' }], 1)], []],
  ['usage with contextUsage', 'chat', [user('q', 1), said([text('a')], 2, { usage: { ...USAGE, contextUsage: { used: 100, limit: 1000 } } })], ['usage-context-kept']],
  ['usage before a compaction, timestamps disagree with order', 'chat', [user('q', 10), said([text('a')], 20), { role: 'compactionSummary', summary: 's', tokensBefore: 1, timestamp: 15 }, user('n', 30), said([text('b')], 40)], ['stale-usage-rule']],
  ['null entry', 'chat', [user('q', 1), null, said([text('a')], 2)], ['null-entries']],
  ['a number and an array among the messages', 'chat', [user('q', 1), 7, [user('inner', 2)], said([text('a')], 3)], ['null-entries']],
  ['result after a text-only assistant', 'chat', [user('q', 1), calls([call('call1')], 2), said([text('等一下')], 3), result('call1', 'r', 4), user('n', 5)], ['pairing-frames']],
  ['same id reused in a later turn', 'responses', [user('q', 1), calls([call('call1')], 2), result('call1', 'one', 3), user('again', 4), calls([call('call1')], 5), result('call1', 'two', 6)], ['pairing-per-occurrence']],
  ['errored tool turn and its result', 'chat', [user('q', 1), calls([call('call1')], 2, { stopReason: 'error' }), result('call1', 'r', 3), user('n', 4)], ['pairing-errored-dropped']],
  ['result id with whitespace', 'chat', [user('q', 1), calls([call('call1')], 2), result(' call1 ', 'r', 3), user('n', 4)], ['pairing-result-aliases']],
  ['Kimi native id', 'chat', [user('q', 1), calls([call('functions.read:0')], 2), result('functions.read:0', 'r', 3), said([text('ok')], 4)], ['kimi-native-ids']],
  ['Kimi ids reused in every turn', 'chat', [user('北京', 1), calls([call('functions.read:0'), call('functions.read:1')], 2), result('functions.read:0', 'a', 3), result('functions.read:1', 'b', 4), said([text('ok')], 5), user('上海', 6), calls([call('functions.read:0')], 7), result('functions.read:0', 'c', 8), said([text('ok')], 9)], ['kimi-native-ids', 'pairing-per-occurrence']],
  ['toolu id, native ids kept', withPolicy('anthropic', { preserveNativeAnthropicToolUseIds: true }), [user('q', 1), calls([call('toolu_01AbC')], 2), result('toolu_01AbC', 'r', 3), said([text('ok')], 4)], ['anthropic-native-ids']],
  ['toolu ids reused and an orphan result', withPolicy('anthropic', { preserveNativeAnthropicToolUseIds: true }), [user('q', 1), calls([call('toolu_01AbC'), call('toolu_01AbC')], 2), result('toolu_01AbC', 'r1', 3), result('toolu_01AbC', 'r2', 4), said([text('ok')], 5)], ['anthropic-native-ids', 'pairing-per-occurrence']],
  ['Responses reasoning without a following block', 'responses', [user('q', 1), said([thinking('', JSON.stringify({ id: 'rs_1', type: 'reasoning' }))], 2), user('n', 3)], ['responses-reasoning-kept']],
  ['Responses: the model switched this call, every reasoning turn goes', 'responses', [user('北京天气', 1), said([thinking('先查天气', rsSig('rs_1')), phased('北京晴，25度。', msgSig('msg_1', 'final_answer'))], 2), user('上海呢', 3), said([thinking('再查', rsSig('rs_2')), phased('我查一下', msgSig('msg_2', 'commentary')), phased('上海多云。', 'msg_legacy')], 4)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1] }],
  ['Responses: switched earlier, reasoning before the switch goes, after it stays', 'responses', [user('北京天气', 1), said([thinking('先查天气', rsSig('rs_1')), phased('北京晴。', msgSig('msg_1', 'final_answer'))], 2), said([thinking('只有推理', rsSig('rs_0'))], '1970-01-01T00:00:00.002Z'), user('上海呢', 4), said([thinking('再查', rsSig('rs_2')), phased('上海多云。', msgSig('msg_2', 'final_answer'))], 5)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1, gptAt(3)] }],
  ['Responses: the same model all along keeps reasoning and signatures (object and string)', 'responses', [user('北京天气', 1), said([thinking('先查天气', rsSig('rs_1')), phased('北京晴。', { v: 1, id: 'msg_1', phase: 'final_answer' })], 2), user('上海呢', 3), said([thinking('再查', rsSig('rs_2')), phased('上海多云。', msgSig('msg_2', 'final_answer'))], 4)], [], { entries: [gptAt(1)] }],
  ['Responses: a rewritten text signature moves last in its block', 'responses', [user('北京天气', 1), said([thinking('先查天气', rsSig('rs_1')), { type: 'text', textSignature: msgSig('msg_1', 'final_answer'), text: '北京晴。' }], 2), user('上海呢', 3)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1] }],
  ['Responses: a compaction checkpoint counts only the blocks left before its index', 'responses', [user('总结一下', 1), said([thinking('先想', rsSig('rs_1')), text('前面的结论'), thinking('再想', rsSig('rs_2')), text('压缩之后的回答')], 2, { providerReplay: { type: 'anthropic-compaction', replayIndex: 3, summary: '早先对话的摘要' } }), user('继续', 3)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1] }],
  ['Responses: a compaction checkpoint goes when a text block was rewritten', 'responses', [user('总结一下', 1), said([thinking('先想', rsSig('rs_1')), phased('压缩之后的回答', msgSig('msg_1', 'final_answer'))], 2, { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1, item: { type: 'compaction', encrypted_content: '加密' } } }), user('继续', 3)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1] }],
  ['Responses: a retained compaction checkpoint stays as written', 'responses', [user('总结一下', 1), said([thinking('先想', rsSig('rs_1')), text('前面的结论'), text('压缩之后的回答')], 2, { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 2 } }), user('继续', 3)], ['responses-stale-reasoning'], { entries: [CLAUDE_AT_1] }],
  ['Responses: the same model all along keeps its compaction checkpoint', 'responses', [user('总结一下', 1), said([thinking('先想', rsSig('rs_1')), phased('压缩之后的回答', msgSig('msg_1', 'final_answer'))], 2, { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } }), user('继续', 3)], [], { entries: [gptAt(1)] }],
  ['Responses: the switch is on another branch, this branch keeps its reasoning', 'responses', [user('北京天气', 1), said([thinking('先查天气', rsSig('rs_1')), phased('北京晴。', msgSig('msg_1', 'final_answer'))], 2), user('上海呢', 4), said([thinking('再查', rsSig('rs_2')), phased('上海多云。', msgSig('msg_2', 'commentary'))], 5)], [], { entries: [CLAUDE_AT_1, gptAt(3)], branch: [gptAt(3)] }],
  ['Responses call without a result', 'responses', [user('q', 1), calls([call('call_1')], 2), user('n', 3)], ['responses-pairing']],
  ['Responses overlong call id', 'responses', [user('q', 1), calls([call(`call_${'x'.repeat(70)}`)], 2), result(`call_${'x'.repeat(70)}`, 'r', 3), said([text('ok')], 4)], ['responses-id-normalisation']],
  ['signed thinking turn keeps its call ids', 'anthropic', [user('q', 1), calls([thinking('想', 'c2ln'), call('call_1|fc_1')], 2), result('call_1|fc_1', 'r', 3), user('n', 4), said([text('ok')], 5)], ['thinking-turn-provider-owned']],
  ['signed thinking turn with a malformed call goes whole', 'anthropic', [user('q', 1), calls([thinking('想', 'c2ln'), call('call_1'), { type: 'toolCall', id: 'call_2', name: 'read' }], 2), result('call_1', 'r', 3), user('n', 4), said([text('ok')], 5)], ['thinking-turn-provider-owned']],
  ['signed thinking ids reserved against a rewritten id', 'anthropic', [user('q', 1), calls([call('call.1')], 2), result('call.1', 'a', 3), user('n', 4), calls([thinking('想', 'c2ln'), call('call1')], 5), result('call1', 'b', 6), said([text('ok')], 7)], ['thinking-turn-provider-owned']],
  ['unsigned-provider thinking turn is edited call by call', 'chat', [user('q', 1), calls([thinking('想'), call('call_1|fc_1')], 2), result('call_1|fc_1', 'r', 3), user('n', 4), said([text('ok')], 5)], ['drop-reasoning-from-history']],
  ['no policy given: 2026.9.6 resolves it (ollama chat drops reasoning)', { provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b' }, [user('q', 1), said([thinking('推理'), text('x')], 2), user('n', 3), said([text('y')], 4)], ['policy-plugins', 'drop-reasoning-from-history']],
  ['no policy given: Mistral (its plugin installed) gets 9-character ids, no turn fixes', withPlugin({ provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' }), [said([text('你好')], 1), user('读 a.md', 2), calls([call('call_abc.123_long')], 3), result('call_abc.123_long', '内容', 4), said([thinking('推理'), text('读完了')], 5), user('n', 6)], ['policy-plugins']],
  ['no policy given: DeepSeek (its plugin installed) keeps reasoning in chat history', withPlugin({ provider: 'deepseek', modelApi: 'openai-completions', modelId: 'deepseek-chat' }), [user('q', 1), said([thinking('推理'), text('x')], 2), user('n', 3), said([text('y')], 4)], []],
  ['no policy given: a reasoning model on an unowned chat provider keeps reasoning', { provider: 'my-proxy', modelApi: 'openai-completions', modelId: 'qwen3', model: { reasoning: true } }, [user('q', 1), said([thinking('推理'), text('x')], 2), user('n', 3), said([text('y')], 4)], []],
  ['no policy given: the same model not marked reasoning drops it', { provider: 'my-proxy', modelApi: 'openai-completions', modelId: 'qwen3', model: { reasoning: false } }, [user('q', 1), said([thinking('推理'), text('x')], 2), user('n', 3), said([text('y')], 4)], ['policy-plugins', 'drop-reasoning-from-history']],
  ['no policy given: a deployment whose canonical model is an older Claude drops thinking', { provider: 'my-proxy', modelApi: 'anthropic-messages', modelId: 'prod-deploy', model: { params: { canonicalModelId: 'claude-sonnet-4-5' } } }, [user('q', 1), said([thinking('a', 'sig1'), text('x')], 2), user('n', 3), said([thinking('b', 'sig2'), text('y')], 4)], ['policy-plugins', 'drop-thinking-latest-kept']],
  ['no policy given: Anthropic keeps toolu ids', { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }, [user('q', 1), calls([call('toolu_01AbC')], 2), result('toolu_01AbC', 'r', 3), said([text('ok')], 4)], ['policy-plugins', 'anthropic-native-ids']],
  ['Google provider, ordering off in the policy, history opens with the assistant', withPolicy('google', { applyGoogleTurnOrdering: false }), [said([text('接着上次的话题')], 1), user('好', 2), said([text('继续')], 3)], ['google-ordering-any-api']],
  ['Google API and provider, history opens with the assistant', 'google', [said([text('你好')], 1), user('北京天气', 2), said([text('晴')], 3)], ['google-ordering-any-api']],
  ['ordering asked for on a chat API (both releases put the bootstrap turn first)', withPolicy('chat', { applyGoogleTurnOrdering: true }), [said([text('你好')], 1), user('q', 2), said([text('a')], 3)], []],
  ['Google provider, history opens with the user', withPolicy('google', { applyGoogleTurnOrdering: false }), [user('你好', 1), said([text('你好！')], 2)], []],
  ['Google provider hook through clawrouter on the Gemini API, ordering off in the policy', { ...withPolicy('google', { applyGoogleTurnOrdering: false }), provider: 'clawrouter' }, [said([text('接着上次的话题')], 1), user('好', 2), said([text('继续')], 3)], ['google-ordering-any-api']],
  ['Google provider hook not for clawrouter on another API', { ...P.chat, provider: 'clawrouter' }, [said([text('接着上次的话题')], 1), user('好', 2), said([text('继续')], 3)], []],
  // Compaction checkpoints through every rule that rebuilds an assistant's content, and twins that stay.
  ['checkpoint: a display-only block removed before the index', 'chat', [user('画一只猫', 1), said([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, text('压缩之前的回答'), text('压缩之后的回答')], 2, { providerReplay: cp('anthropic-compaction', 2) }), user('继续', 3)], ['assistant-media-blocks', 'compaction-checkpoint']],
  ['checkpoint: OpenClaw metadata stripped from a text', 'chat', [user('q', 1), said([text('答案\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n内部\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>'), text('压缩之后')], 2, { providerReplay: cp('openai-responses-compaction', 1) }), user('继续', 3)], ['assistant-internal-metadata', 'compaction-checkpoint']],
  ['checkpoint: string content', 'chat', [user('q', 1), said('压缩之后的回答', 2, { providerReplay: cp('anthropic-compaction', 0) }), user('继续', 3)], ['compaction-checkpoint']],
  ['checkpoint: blank text removed by the image pass, and a turn left empty kept', 'chat', [user('q', 1), said([text(''), text('前面的结论'), text('后面的回答')], 2, { providerReplay: cp('anthropic-compaction', 2) }), user('再说', 3), said([text(' ')], 4, { providerReplay: cp('anthropic-compaction', 0) }), user('继续', 5)], ['images-ignore-mode', 'compaction-checkpoint']],
  ['checkpoint: indices as JS Number reads them', 'chat', [user('q', 1), ...[' 2 ', 'abc', [2], true, null, 1.5, -1, '9', '0x1', []].map((index, k) => said([text('第一段'), text('第二段'), text('第三段')], 2 + k, { providerReplay: cp('anthropic-compaction', index) })), user('继续', 20)], ['compaction-checkpoint']],
  ['checkpoint: a malformed call removed by the input repair', 'chat', [user('读 a.md', 1), calls([text('先读文件'), call('call1'), { type: 'toolCall', id: 'call2', name: 'read' }, text('读完再说')], 2, { providerReplay: cp('anthropic-compaction', 3) }), result('call1', '内容', 3), said([text('读完了')], 4)], ['compaction-checkpoint']],
  ['checkpoint: a Responses call id shortened', 'responses', [user('q', 1), calls([text('查一下'), call(`call_${'长'.repeat(70)}`)], 2, { providerReplay: cp('openai-responses-compaction', 1) }), result(`call_${'长'.repeat(70)}`, '结果', 3), said([text('好了')], 4)], ['responses-id-normalisation', 'compaction-checkpoint']],
  ['checkpoint: a Responses call id without its reasoning item downgraded', 'responses', [user('q', 1), calls([text('查一下'), call('call_1|fc_1')], 2, { providerReplay: cp('anthropic-compaction', 1) }), result('call_1|fc_1', '结果', 3), said([text('好了')], 4)], ['compaction-checkpoint']],
  ['checkpoint twin: a retained checkpoint, and a turn the rules leave alone', 'chat', [user('q', 1), said([text(''), text('压缩之后')], 2, { providerReplay: cp('openai-responses-retained-compaction', 1) }), user('再说', 3), said([text('前面'), text('后面')], 4, { providerReplay: cp('anthropic-compaction', 1) }), user('继续', 5)], ['images-ignore-mode']],
  ['checkpoint twin: the id rewrite of other APIs keeps it as written', 'chat', [user('q', 1), calls([text('查一下'), call('call_1|fc_1')], 2, { providerReplay: cp('anthropic-compaction', 1) }), result('call_1|fc_1', '结果', 3), said([text('好了')], 4)], []],
  ['inter-session user turn', 'chat', [user([text('来自另一个会话')], 1, { provenance: { kind: 'inter_session', sourceSessionKey: 'agent:main:x', sourceChannel: 'discord', sourceTool: 'sessions_send' } }), said([text('收到')], 2)], ['inter-session-marker']],
]

const jsonl = (file) => readFileSync(new URL(`./fixtures/cli/${file}`, import.meta.url), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)).filter((e) => e.type === 'message').map((e) => e.message)
const json = (file) => JSON.parse(readFileSync(new URL(`./fixtures/cli/${file}`, import.meta.url), 'utf8'))

/** Larger inputs, through each policy: [name, messages, {policy key: differences}]. */
const LARGE = [
  ['generated, 120 messages', makeTranscript(120), { anthropic: ['thinking-turn-provider-owned'], chat: ['drop-reasoning-from-history'] }],
  ['fixture session.jsonl', jsonl('session.jsonl'), { chat: ['drop-reasoning-from-history'] }],
  ['fixture compacted.jsonl', jsonl('compacted.jsonl'), { responses: ['responses-pairing'] }],
  ['fixture messages.json', json('messages.json'), { responses: ['responses-pairing'] }],
  ['fixture history-mixed.json', json('history-mixed.json'), {}],
]

function cases() {
  const out = HAND.map(([name, params, messages, diffs, session = {}]) => ({ name, params: typeof params === 'string' ? P[params] : params, messages, diffs, ...session }))
  for (const [name, messages, tags] of LARGE) {
    for (const key of Object.keys(P)) out.push({ name: `${name} / ${key}`, params: P[key], messages, diffs: tags[key] ?? [] })
  }
  return out
}

// OpenClaw's synthetic tool-result text, asked for here too (this package's default is its own).
const SYNTHETIC = '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.'
// The Google bootstrap turn and synthetic tool results are stamped with the clock in OpenClaw,
// with a neighbour's timestamp here (the documented difference the 2026.3.23 parity spec also
// allows for).
const stamped = (m) => m && (m.content === '(session bootstrap)' || (m.role === 'toolResult' && [SYNTHETIC, 'aborted'].includes(m.content?.[0]?.text)))
const clockless = (messages) => (Array.isArray(messages) ? messages.map((m) => (stamped(m) ? { ...m, timestamp: 0 } : m)) : messages)

/** Where two message lists first differ, for a failure message. */
function firstDifference(ours, theirs) {
  if (!Array.isArray(ours) || !Array.isArray(theirs)) return `ours ${JSON.stringify(ours)}`
  const n = Math.max(ours.length, theirs.length)
  for (let i = 0; i < n; i++) {
    const [a, b] = [JSON.stringify(ours[i]), JSON.stringify(theirs[i])]
    if (a !== b) return `[${i}] of ${ours.length}/${theirs.length}\n  ours:   ${a}\n  theirs: ${b}`
  }
  return 'equal'
}

async function oracle323(calls) {
  const ref = await loadOpenClaw()
  return ref === null ? null : invoke(ref.fns, calls, ref.version)
}

/** Cases that compare the session entries appended too (the Google bootstrap marker, model snapshots). */
const recordsEntries = (c) => c.diffs.includes('google-ordering-any-api') || c.name.startsWith('Google provider') || c.entries !== undefined

/** Differences whose cases are also run in 2026.3.23 mode, which must give 2026.3.23-2's output. */
const OLD_MODE_TWINS = new Set(['assistant-internal-metadata', 'thinking-turn-provider-owned', 'unpadded-base64', 'google-ordering-any-api', 'image-failure-text'])

/** Differences no case here can show, and why. */
const WITHOUT_CASE = {
  'policy-plugins': 'the cases pass their policy; resolution is compared on its own below',
  'order-ids-after-pairing': 'reproduced, but on every input tried the id rewrite and the 2026.3.23 pairing commute, so the order alone changes nothing',
}

const session = (n, lead = []) => [...lead, ...Array.from({ length: n }, (_, i) => [user(`第${i}轮`, 2 * i + 10), said([text(`答${i}`)], 2 * i + 11)]).flat()]
const SUMMARY = { role: 'compactionSummary', summary: '之前的对话', tokensBefore: 100, timestamp: 1 }

/**
 * Functions OpenClaw's attempt runs after this pass, each with the version as an option:
 * [name, function, arguments before the options, differences, { oldModeDiffers }]; the same rules
 * as HAND, and in 2026.3.23 mode each gives 2026.3.23-2's output unless `oldModeDiffers` says this
 * package deliberately differs from that release there.
 */
const ATTEMPT = [
  ['limit 4, 6 user turns (under 1.5x)', 'limitHistoryTurns', [session(6), 4], ['history-limit-hysteresis']],
  ['limit 4, 7 user turns (a batch cut: both keep 4)', 'limitHistoryTurns', [session(7), 4], []],
  ['limit 4, 9 user turns', 'limitHistoryTurns', [session(9), 4], ['history-limit-hysteresis']],
  ['limit 3, a leading summary', 'limitHistoryTurns', [session(8, [SUMMARY]), 3], ['history-limit-hysteresis']],
  ['limit 2.5, 3 user turns', 'limitHistoryTurns', [session(3), 2.5], ['history-limit-hysteresis']],
  ['limit 4, 4 user turns', 'limitHistoryTurns', [session(4, [SUMMARY]), 4], []],
  ['limit 1, 3 user turns', 'limitHistoryTurns', [session(3), 1], []],
  ['Anthropic turns: consecutive assistants', 'validateAnthropicTurns', [[user('q', 1), said([text('先看看')], 2), said([text('好了')], 3), user('n', 4)]], ['anthropic-turn-merge']],
  ['Anthropic turns: a toolCall no result answers', 'validateAnthropicTurns', [[user('q', 1), calls([call('call1')], 2), user('n', 3), said([text('ok')], 4)]], ['anthropic-turn-merge']],
  ['Anthropic turns: an aborted turn with a dangling call', 'validateAnthropicTurns', [[user('q', 1), calls([text('读'), call('call1')], 2, { stopReason: 'aborted' }), user('n', 3)]], ['anthropic-turn-merge']],
  ['Anthropic turns: a signed turn whose result names another tool', 'validateAnthropicTurns', [[user('q', 1), calls([thinking('想', 'c2ln'), call('c1'), call('c2')], 2), result('c1', 'a', 3), { ...result('c2', 'b', 4), toolName: 'write' }, said([text('ok')], 5)]], ['anthropic-turn-merge']],
  ['Anthropic turns: string user turns merge as text (2026.3.23 lost them; this package never did)', 'validateAnthropicTurns', [[said([text('a')], 1), user('第一', 2), user('第二', 3)]], ['anthropic-turn-merge'], { oldModeDiffers: true }],
  ['Anthropic turns: a toolUse answered by a block\'s tool_use_id', 'validateAnthropicTurns', [[user('q', 1), calls([{ type: 'toolUse', id: 'toolu_01', name: 'read', input: { path: 'a.md' } }], 2), user([{ type: 'toolResult', tool_use_id: 'toolu_01', content: '内容' }, text('继续')], 3)]], ['anthropic-result-aliases']],
  ['Anthropic turns: result blocks under every other id field', 'validateAnthropicTurns', [[user('q', 1), calls([{ type: 'toolUse', id: 'u1', name: 'read', input: {} }, call('c2'), call('c3'), call('c4'), call('c5'), call('c6')], 2), user([{ type: 'toolResult', toolCallId: 'u1' }, { type: 'tool', tool_call_id: ' c2 ' }, { type: 'toolResult', callId: 'c3' }, { type: 'tool', call_id: 'c4' }, { type: 'tool', toolUseId: 'c5' }, { type: 'text', text: '好', call_id: 'c6' }], 3)]], ['anthropic-result-aliases']],
  ['Anthropic turns: a signed turn whose result names another tool by name', 'validateAnthropicTurns', [[user('q', 1), calls([thinking('想', 'c2ln'), call('c1')], 2), { role: 'toolResult', toolCallId: 'c1', name: 'write', content: [text('写了')], isError: false, timestamp: 3 }, said([text('ok')], 4)]], ['anthropic-result-aliases']],
  ['Anthropic turns: a signed turn answered by name, toolName blank', 'validateAnthropicTurns', [[user('q', 1), calls([thinking('想', 'c2ln'), call('c1')], 2), { role: 'toolResult', toolCallId: 'c1', toolName: ' ', name: 'read', content: [text('读了')], isError: false, timestamp: 3 }, said([text('ok')], 4), user('n', 5)]], []],
  ['Anthropic turns: answered calls, alternating turns', 'validateAnthropicTurns', [[user('q', 1), calls([thinking('想', 'c2ln'), call('c1')], 2), result('c1', '内容', 3), said([text('ok')], 4), user('n', 5)]], []],
]

test('every listed difference is named once and has a case', () => {
  const tagged = new Set([...HAND, ...ATTEMPT].flatMap(([, , , d]) => d))
  for (const name of tagged) assert.ok(DIFFERENCES[name], `a case names an unknown difference ${name}`)
  const untested = Object.keys(DIFFERENCES).filter((d) => !(d in WITHOUT_CASE) && !tagged.has(d))
  assert.deepEqual(untested, [], 'every difference has a hand-written case')
})

test('sanitizeSessionHistory in 2026.9.6 mode against openclaw 2026.9.6 and 2026.3.23-2', async (t) => {
  const why = missing() ?? (loadOpenClaw === null ? 'no loader' : null)
  if (why !== null) {
    t.skip(why)
    return
  }
  const all = cases()
  const calls = all.map((c) => ['sanitizeSessionHistory', { ...c.params, messages: c.messages, sessionEntries: c.entries ?? [], ...(c.branch ? { sessionBranch: c.branch } : {}), ...(recordsEntries(c) ? { recordAppended: true } : {}) }])
  const new96 = await memoized('2026.9.6', calls, runOpenClaw96)
  const old323 = await memoized('2026.3.23-2', calls, oracle323)
  if (old323 === null) {
    t.skip(installHint())
    return
  }
  const tally = { equal: 0, todoDiffers: 0 }
  const perDiff = {}
  const failures = []
  for (let i = 0; i < all.length; i++) {
    const c = all[i]
    const theirs = new96[i]
    const old = old323[i]
    assert.equal(theirs.error, undefined, `${c.name}: openclaw 2026.9.6 threw ${theirs.error}`)
    let ours
    const appended = []
    const custom = (list) => (list ?? []).map((e) => ({ type: 'custom', ...e }))
    const [entries, branch] = [custom(c.entries), c.branch ? custom(c.branch) : null]
    const sessionManager = recordsEntries(c) ? { getEntries: () => entries, ...(branch ? { getBranch: () => branch } : {}), appendCustomEntry: (type) => appended.push(type) } : undefined
    try {
      ours = th.sanitizeSessionHistory({ ...c.params, messages: c.messages, syntheticToolResultText: SYNTHETIC, openclawVersion: '2026.9.6', sessionManager })
    } catch (err) {
      ours = { error: String(err.message) }
    }
    // What is compared: the messages, and for cases that record them, the entries appended.
    const seen = (value, entries) => JSON.stringify([clockless(value), entries ?? []])
    const releasesAgree = old.error === undefined && seen(old.value, old.appended) === seen(theirs.value, theirs.appended)
    const same = seen(ours, recordsEntries(c) ? appended : undefined) === seen(theirs.value, theirs.appended)
    const todo = c.diffs.filter((d) => DIFFERENCES[d][0] !== 'done')
    if (c.diffs.length === 0 && !releasesAgree) failures.push(`${c.name}: the releases disagree, but the case names no difference: 2026.3.23 ${firstDifference(clockless(old.value), clockless(theirs.value)).replace('ours:  ', 'old:   ')}`)
    if (c.diffs.length > 0 && releasesAgree) failures.push(`${c.name}: the releases agree, so it does not exercise ${c.diffs.join(', ')}`)
    if (todo.length === 0 && !same) failures.push(`${c.name}: differs from 2026.9.6 at ${firstDifference(clockless(ours), clockless(theirs.value))}; entries appended ${JSON.stringify(appended)} / ${JSON.stringify(theirs.appended)}`)
    if (todo.length > 0 && same) failures.push(`${c.name}: now matches 2026.9.6: mark ${todo.join(', ')} done`)
    // The same case in 2026.3.23 mode keeps that release's behaviour, for the differences written
    // with the release as data in a rule both modes run.
    if (c.diffs.length > 0 && c.diffs.every((d) => OLD_MODE_TWINS.has(d))) {
      const ours323 = th.sanitizeSessionHistory({ ...c.params, messages: c.messages, syntheticToolResultText: SYNTHETIC, openclawVersion: '2026.3.23' })
      if (JSON.stringify(clockless(ours323)) !== JSON.stringify(clockless(old.value))) failures.push(`${c.name}: 2026.3.23 mode differs from 2026.3.23-2 at ${firstDifference(clockless(ours323), clockless(old.value))}`)
    }
    if (same) tally.equal++
    else tally.todoDiffers++
    for (const d of c.diffs) {
      perDiff[d] ??= { cases: 0, equal: 0 }
      perDiff[d].cases++
      if (same) perDiff[d].equal++
    }
  }
  const done = Object.entries(DIFFERENCES).filter(([, [s]]) => s === 'done').map(([n]) => n)
  const todo = Object.entries(DIFFERENCES).filter(([, [s]]) => s !== 'done').map(([n]) => n)
  t.diagnostic(`${all.length} cases: ${tally.equal} equal to 2026.9.6, ${tally.todoDiffers} differ on a todo difference`)
  t.diagnostic(`done (${done.length}): ${done.join(', ') || '-'}`)
  t.diagnostic(`todo (${todo.length}): ${todo.join(', ')}`)
  assert.deepEqual(failures, [])
})

test('what the attempt runs after the pass, in 2026.9.6 mode, against both releases', async (t) => {
  if (missing() !== null) {
    t.skip(missing())
    return
  }
  const calls = ATTEMPT.map(([, fn, args]) => [fn, ...args])
  const new96 = await memoized('2026.9.6', calls, runOpenClaw96)
  const old323 = await memoized('2026.3.23-2', calls, oracle323)
  if (old323 === null) {
    t.skip(installHint())
    return
  }
  const failures = []
  for (let i = 0; i < ATTEMPT.length; i++) {
    const [name, fn, args, diffs, { oldModeDiffers = false } = {}] = ATTEMPT[i]
    const [theirs, old] = [new96[i], old323[i]]
    assert.equal(theirs.error, undefined, `${name}: openclaw 2026.9.6 threw ${theirs.error}`)
    const ours = th[fn](...args, { openclawVersion: '2026.9.6' })
    const releasesAgree = old.error === undefined && JSON.stringify(old.value) === JSON.stringify(theirs.value)
    const same = JSON.stringify(ours) === JSON.stringify(theirs.value)
    const todo = diffs.filter((d) => DIFFERENCES[d][0] !== 'done')
    if (diffs.length === 0 && !releasesAgree) failures.push(`${name}: the releases disagree, but the case names no difference`)
    if (diffs.length > 0 && releasesAgree) failures.push(`${name}: the releases agree, so it does not exercise ${diffs.join(', ')}`)
    if (todo.length === 0 && !same) failures.push(`${name}: differs from 2026.9.6 at ${firstDifference(ours, theirs.value)}`)
    if (todo.length > 0 && same) failures.push(`${name}: now matches 2026.9.6: mark ${todo.join(', ')} done`)
    // The default release is untouched by the option's absence.
    if (!oldModeDiffers && JSON.stringify(th[fn](...args, { openclawVersion: '2026.3.23' })) !== JSON.stringify(old.value)) failures.push(`${name}: 2026.3.23 mode differs from 2026.3.23-2`)
  }
  assert.deepEqual(failures, [])
})

// Provider/API/model triples from the policy matrix of ../shared/reference/openclaw-2026.9.6.md §4.
const TRIPLES = [
  ['anthropic', 'anthropic-messages', 'claude-opus-4-6'], ['anthropic', 'anthropic-messages', 'claude-sonnet-4-5'], ['anthropic', 'anthropic-messages', 'claude-opus-5-5'],
  ['anthropic', 'anthropic-messages', 'claude-haiku-4-5'], ['amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-opus-4-6-v1:0'], ['anthropic-vertex', 'anthropic-messages', 'claude-sonnet-4-5'],
  ['openai', 'openai-responses', 'gpt-5'], ['openai', 'openai-completions', 'gpt-4o'], ['google', 'google-generative-ai', 'gemini-2.5-pro'], ['google-vertex', 'google-vertex', 'gemini-2.5-pro'],
  ['openrouter', 'openai-completions', 'google/gemini-2.5-pro'], ['openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5'], ['openrouter', 'openai-completions', 'mistralai/mistral-large'],
  ['mistral', 'openai-completions', 'mistral-large-latest'], ['ollama', 'openai-completions', 'qwen3:8b'], ['ollama', 'ollama', 'qwen3:8b'], ['vllm', 'openai-completions', 'Qwen/Qwen3-8B'],
  ['deepseek', 'openai-completions', 'deepseek-chat'], ['zai', 'openai-completions', 'glm-4.6'], ['moonshot', 'openai-completions', 'kimi-k2.5'], ['minimax', 'anthropic-messages', 'MiniMax-M2'],
  ['kimi-coding', 'anthropic-messages', 'kimi-for-coding'], ['xai', 'openai-responses', 'grok-4'], ['github-copilot', 'anthropic-messages', 'claude-sonnet-4.5'], ['github-copilot', 'openai-responses', 'gpt-5'],
  ['opencode-go', 'openai-completions', 'gemini-3-pro'], ['my-proxy', 'anthropic-messages', 'claude-sonnet-4-5'], ['my-proxy', 'openai-responses', 'claude-sonnet-4-5'], [undefined, 'openai-responses', 'gpt-5'],
  // Every bundled plugin's other branches, ids written loosely, and the model-id rules.
  ['google-gemini-cli', 'google-gemini-cli', 'gemini-3-pro'], ['ollama-cloud', 'openai-completions', 'kimi-k2.5:cloud'], ['sglang', 'openai-completions', 'Qwen/Qwen3-8B'],
  ['clawrouter', 'anthropic-messages', 'claude-sonnet-4-5'], ['clawrouter', 'google-generative-ai', 'gemini-2.5-pro'], ['clawrouter', 'openai-completions', 'gpt-4o'],
  ['openai', 'azure-openai-responses', 'gpt-5'], ['xai', 'openai-completions', 'grok-4'], ['github-copilot', 'openai-completions', 'gpt-4o'],
  ['bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-3-7-sonnet'], [' Anthropic ', 'anthropic-messages', 'Claude Opus 4.6'], ['anthropic', 'anthropic-messages', 'claude-fable-5-1'],
  ['anthropic', 'openai-completions', 'opus-5'], ['openrouter', 'openai-completions', 'openrouter/~codestral-latest'], ['my-proxy', 'openai-completions', 'moonshotai/kimi-k2-thinking'],
  ['my-proxy', 'openai-chatgpt-responses', 'anthropic/claude-sonnet-4.5'], ['my-proxy', 'google-vertex', 'gemini-2.5-pro'], ['z.ai', 'openai-completions', 'glm-4.6'],
  // The installed external plugins (PROVIDER_PLUGINS) on their other APIs, and an id written loosely.
  ['deepseek', 'openai-responses', 'deepseek-reasoner'], ['mistral', 'anthropic-messages', 'mistral-large-latest'], [' Mistral ', 'openai-completions', 'mistral-large-latest'],
  // Qwen's plugin installed: no replay policy of its own, so each of its providers gets the fallback.
  ['qwen', 'openai-completions', 'qwen3.6-plus'], ['qwen-token-plan', 'openai-completions', 'kimi-k2.5'], ['bailian-token-plan', 'anthropic-messages', 'glm-5'],
  // The resolved model's fields (the fourth element: the `model` option).
  ['my-proxy', 'openai-completions', 'qwen3', { reasoning: true }], ['my-proxy', 'openai-completions', 'qwen3', { reasoning: false }],
  ['my-proxy', 'anthropic-messages', 'claude-opus-4-6', { compat: { supportsReasoningEffort: false } }], ['my-proxy', 'anthropic-messages', 'claude-opus-4-6', { compat: { supportsReasoningEffort: true } }],
  ['my-proxy', 'anthropic-messages', 'prod-deploy', { params: { canonicalModelId: 'claude-sonnet-4-5' } }], ['my-proxy', 'anthropic-messages', 'claude-sonnet-4-5', { params: { canonicalModelId: 'claude-opus-5-5' } }],
  ['anthropic', 'anthropic-messages', 'prod-claude', { params: { canonicalModelId: 'claude-opus-5-5' } }], ['anthropic', 'anthropic-messages', 'claude-sonnet-4-5', { compat: { supportsReasoningEffort: false }, reasoning: true }],
  ['amazon-bedrock', 'bedrock-converse-stream', 'arn:aws:bedrock:us-east-1:1:application-inference-profile/x', { params: { canonicalModelId: 'anthropic.claude-opus-4-6-v1:0' } }],
  ['ollama', 'openai-completions', 'qwen3:8b', { reasoning: true }], ['mistral', 'openai-completions', 'mistral-small-latest', { reasoning: true, compat: { supportsReasoningEffort: true } }],
  ['clawrouter', 'anthropic-messages', 'router-claude', { params: { canonicalModelId: 'claude-3-7-sonnet' } }], ['my-proxy', 'openai-completions', 'qwen3', { params: { canonicalModelId: 'kimi-k2.5' } }],
]
test('policy resolution in 2026.9.6 mode equals openclaw 2026.9.6 (provider plugins), field for field', async (t) => {
  if (missing() !== null) {
    t.skip(missing())
    return
  }
  const calls = TRIPLES.map(([provider, modelApi, modelId, model]) => ['resolveTranscriptPolicy', withPlugin({ provider, modelApi, modelId, model })])
  const theirs = await memoized('2026.9.6', calls, runOpenClaw96)
  const differ = []
  for (let i = 0; i < TRIPLES.length; i++) {
    const [provider, modelApi, modelId, model] = TRIPLES[i]
    assert.equal(theirs[i].error, undefined, `${JSON.stringify(TRIPLES[i])}: ${theirs[i].error}`)
    const ours = th.resolveTranscriptPolicy({ provider: withoutPlugin(provider), modelApi, modelId, model, openclawVersion: '2026.9.6' })
    if (JSON.stringify(ours) !== JSON.stringify(theirs[i].value)) differ.push(`${JSON.stringify(TRIPLES[i])}:\n  ours:   ${JSON.stringify(ours)}\n  theirs: ${JSON.stringify(theirs[i].value)}`)
  }
  t.diagnostic(`${TRIPLES.length - differ.length} of ${TRIPLES.length} triples resolve as in 2026.9.6`)
  assert.equal(DIFFERENCES['policy-plugins'][0] === 'done', differ.length === 0, `policy-plugins is done exactly when every triple resolves as in 2026.9.6:\n${differ.join('\n')}`)
})
