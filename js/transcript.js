'use strict'
// Transcript functions: encode the skeleton, make the one native call, apply the plan.
// Options are checked against js/options.js's table; no rule is decided here.

const native = require('../binding.js')
const { run } = require('./run.js')
const { OPTIONS, pick } = require('./options.js')
const { fail, toJson } = require('./args.js')
const sessions = require('./transcript-session.js')
const { sessionEntries } = require('./session-entries.js')

/** The plan's extra fields, with `added` (output positions) turned into the messages themselves. */
function extra(result) {
  const x = result.plan.extra || {}
  if (Array.isArray(x.added)) x.added = x.added.map((i) => result.messages[i])
  return x
}

function reported(result, o, value) {
  return o.report === true ? { ...value, changes: result.plan.changes || [] } : value
}

/** `messages -> messages` operations: the same array back when nothing changed. */
function simple(op) {
  return (messages) => run(op, messages).messages
}

function appendEntries(sessionManager, entries) {
  if (!entries || !sessionManager || typeof sessionManager.appendCustomEntry !== 'function') return
  for (const [customType, data] of entries) {
    try {
      sessionManager.appendCustomEntry(customType, data)
    } catch {
      // OpenClaw ignores a session manager that cannot record entries; so do we.
    }
  }
}

function resolveTranscriptPolicy(params) {
  const p = params || {}
  const str = (v) => (typeof v === 'string' ? v : undefined)
  const { openclawVersion, model } = typeof p === 'object' ? pick(p, OPTIONS.resolveTranscriptPolicy, 'params') : {}
  const modelJson = model === undefined ? undefined : JSON.stringify(model)
  return JSON.parse(native.resolveTranscriptPolicyJson(str(p.provider), str(p.modelApi), str(p.modelId), openclawVersion, modelJson))
}

function checkedParams(params) {
  if (params === null || typeof params !== 'object') throw new TypeError(`params: expected an object, got ${params === null ? 'null' : typeof params}`)
  return pick(params, OPTIONS.sanitizeSessionHistory, 'params')
}

/**
 * One pass of sanitizeSessionHistory with checked options `o`: incremental through `session`
 * (js/transcript-session.js) when given and no report was asked for (a report's paths are the
 * whole history's), else the full pass.
 */
function historyPass(messages, o, sessionManager, warn, session) {
  const incremental = session !== null && o.report !== true
  // 2026.9.6 finds a model switch among the snapshots of the current branch.
  const branch = (o.openclawVersion ?? native.getOpenClawVersionNative()) === '2026.9.6'
  const entries = incremental ? session.memo.read(sessionManager, branch) : sessionEntries(sessionManager, branch)
  const now = Date.now()
  const r = incremental ? session.sanitize(messages, o, entries, now) : run('sanitizeSessionHistory', messages, { ...o, sessionEntries: entries, now })
  appendEntries(sessionManager, r.plan.entries)
  const x = r.plan.extra || {}
  if (x.warnings && typeof warn === 'function') for (const w of x.warnings) warn(w)
  const out = r.messages === messages ? messages.slice() : r.messages
  return o.report === true ? { messages: out, changes: r.plan.changes || [] } : out
}

function sanitizeSessionHistory(params) {
  const o = checkedParams(params)
  const incremental = o.sessionId !== undefined && o.incremental !== false && o.report !== true
  const session = incremental ? sessions.session(o.sessionId, toJson(o, 'params')) : null
  return historyPass(params.messages, o, params.sessionManager, params.warn, session)
}

/**
 * sanitizeSessionHistory for one session without a sessionId: `params` as sanitizeSessionHistory
 * takes them, minus the messages, fixed at creation; `.sanitize(messages)` runs the pass,
 * incrementally when `messages` extends the previous call's.
 */
function createTranscriptSanitizer(params) {
  const o = checkedParams(params)
  const { sessionManager, warn } = params
  const session = o.incremental === false || o.report === true ? null : new sessions.Session(toJson(o, 'params'))
  return {
    sanitize(messages) {
      return historyPass(messages, o, sessionManager, warn, session)
    },
  }
}

/** `{ maxSessions }` for sanitizeSessionHistory's remembered sessions; returns the settings. */
function configureTranscriptSessions(options) {
  return sessions.configure(pick(options, OPTIONS.transcriptSessions, 'options'))
}

/** `mode` of the id functions: 'strict9', or 'strict' (the default, as for any other string, as in OpenClaw). */
function idMode(mode) {
  if (mode !== undefined && typeof mode !== 'string') fail('mode', "'strict' or 'strict9'", mode)
  return mode
}

function sanitizeToolCallIdsForCloudCodeAssist(messages, mode) {
  return run('sanitizeToolCallIdsForCloudCodeAssist', messages, { mode: idMode(mode) ?? 'strict' }).messages
}

function repairToolCallInputs(messages, options) {
  const o = pick(options, OPTIONS.repairToolCallInputs, 'options')
  const r = run('repairToolCallInputs', messages, o)
  return reported(r, o, { messages: r.messages, ...extra(r) })
}

function sanitizeToolCallInputs(messages, options) {
  return run('sanitizeToolCallInputs', messages, pick(options, OPTIONS.sanitizeToolCallInputs, 'options')).messages
}

function repairToolUseResultPairing(messages, options) {
  const o = pick(options, OPTIONS.repairToolUseResultPairing, 'options')
  const r = run('repairToolUseResultPairing', messages, o)
  return reported(r, o, { messages: r.messages, ...extra(r) })
}

function sanitizeToolUseResultPairing(messages, options) {
  return run('sanitizeToolUseResultPairing', messages, pick(options, OPTIONS.sanitizeToolUseResultPairing, 'options')).messages
}

function mergeConsecutiveUserTurns(previous, current) {
  return run('mergeConsecutiveUserTurns', [previous, current], {}, 'turns').messages[0]
}

function applyGoogleTurnOrderingFix(params) {
  if (params === null || typeof params !== 'object') throw new TypeError('params: expected an object')
  const o = pick(params, OPTIONS.applyGoogleTurnOrderingFix, 'params')
  const entries = sessionEntries(params.sessionManager)
  const r = run('applyGoogleTurnOrderingFix', params.messages, { ...o, sessionEntries: entries, now: Date.now() })
  appendEntries(params.sessionManager, r.plan.entries)
  const x = r.plan.extra || {}
  if (x.warning && typeof params.warn === 'function') params.warn(x.warning)
  return { messages: r.messages, didPrepend: x.didPrepend === true }
}

function stripThoughtSignatures(content, options) {
  if (!Array.isArray(content)) return content
  const wrapped = [{ role: 'assistant', content }]
  const o = options === undefined || options === null ? null : pick(options, OPTIONS.thoughtSignatures, 'options')
  const r = run('stripThoughtSignatures', wrapped, { options: o }, 'content')
  return r.messages === wrapped ? content : r.messages[0].content
}

function downgradeOpenAIReasoningBlocks(messages) {
  const out = run('downgradeOpenAIReasoningBlocks', messages).messages
  return out === messages ? messages.slice() : out
}

function sanitizeSessionMessagesImages(messages, label, options) {
  if (label !== undefined && typeof label !== 'string') fail('label', 'a string', label)
  const o = pick(options, OPTIONS.images, 'options')
  const out = run('sanitizeSessionMessagesImages', messages, { ...o, label: label ?? 'session:history' }).messages
  return out === messages ? messages.slice() : out
}

function limitHistoryTurns(messages, limit, options) {
  if (!Array.isArray(messages)) throw new TypeError(`messages: expected an array of messages, got ${messages === null ? 'null' : typeof messages}`)
  if (limit !== undefined && limit !== null && typeof limit !== 'number') fail('limit', 'a number of user turns', limit)
  const { openclawVersion } = pick(options, OPTIONS.limitHistoryTurns, 'options')
  if (!(limit > 0) || messages.length === 0) return messages
  return run('limitHistoryTurns', messages, { limit, openclawVersion }).messages
}

function validateAnthropicTurns(messages, options) {
  return run('validateAnthropicTurns', messages, pick(options, OPTIONS.validateAnthropicTurns, 'options')).messages
}

function repairSessionFile(path, options) {
  if (typeof path !== 'string') throw new TypeError(`path: expected a string, got ${typeof path}`)
  const o = pick(options, OPTIONS.repairSessionFile, 'options')
  const r = native.repairSessionFile(path, o.backup !== false, o.dryRun === true)
  const out = { repaired: r.repaired, droppedLines: r.droppedLines }
  if (r.droppedLines > 0) out.droppedLineNumbers = r.droppedLineNumbers
  if (r.backupPath != null) out.backupPath = r.backupPath
  if (r.reason != null) out.reason = r.reason
  if (r.warning != null && typeof o.warn === 'function') o.warn(r.warning)
  return out
}

function sanitizeToolCallId(id, mode) {
  return native.sanitizeToolCallId(typeof id === 'string' ? id : undefined, idMode(mode))
}

function isValidCloudCodeAssistToolId(id, mode) {
  return native.isValidCloudCodeAssistToolId(typeof id === 'string' ? id : undefined, idMode(mode))
}

module.exports = {
  resolveTranscriptPolicy,
  sanitizeSessionHistory,
  createTranscriptSanitizer,
  configureTranscriptSessions,
  sanitizeToolCallId,
  isValidCloudCodeAssistToolId,
  sanitizeToolCallIdsForCloudCodeAssist,
  sanitizeToolCallInputs,
  repairToolCallInputs,
  repairToolUseResultPairing,
  sanitizeToolUseResultPairing,
  validateGeminiTurns: simple('validateGeminiTurns'),
  validateAnthropicTurns,
  mergeConsecutiveUserTurns,
  sanitizeGoogleTurnOrdering: simple('sanitizeGoogleTurnOrdering'),
  applyGoogleTurnOrderingFix,
  stripThoughtSignatures,
  dropThinkingBlocks: simple('dropThinkingBlocks'),
  downgradeOpenAIReasoningBlocks,
  downgradeOpenAIFunctionCallReasoningPairs: simple('downgradeOpenAIFunctionCallReasoningPairs'),
  stripToolResultDetails: simple('stripToolResultDetails'),
  sanitizeSessionMessagesImages,
  limitHistoryTurns,
  annotateInterSessionUserMessages: simple('annotateInterSessionUserMessages'),
  ensureAssistantUsageSnapshots: simple('ensureAssistantUsageSnapshots'),
  repairSessionFile,
}
