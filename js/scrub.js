'use strict'
// Outbound text scrubbers (OpenClaw's) and seed 000's sanitizer API. Argument checks only; every
// rule is in Rust (src/scrub/). A native call returns null when the text is unchanged (the
// caller's own string is returned), or the new text (see `joined` in args.js).

const native = require('../binding.js')
const { describe, joined, toJson } = require('./args.js')
const { OPTIONS, OPENCLAW_VERSION, pick } = require('./options.js')

function expectString(value, name) {
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string, got ${describe(value)}`)
}

function expectOptions(options, name) {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${name}: expected an object, got ${describe(options)}`)
  return options
}

// What each scrubber needs in a text to change it (2026.3.23: src/napi/scrub.rs; 2026.9.6:
// src/scrub/visible/needles.rs): V8 finds out with `includes` (or one case-blind RegExp) in a
// fraction of what reading a long reply into the addon costs.
const NEEDLES = native.scrubberNeedlesNative()
const V2026_3_23 = '2026.3.23'
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const VISIBLE = Object.fromEntries(
  Object.entries(native.visibleNeedlesNative()).map(([name, { exact, ignoreCase }]) => [
    name,
    { exact, ignoreCase: ignoreCase.length === 0 ? null : new RegExp(ignoreCase.map(escapeRegExp).join('|'), 'i') },
  ]),
)

/** Whether the scrubber `name` of release `version` surely returns `text` as it is (none of its needles). */
function untouched(name, text, version) {
  if ((version ?? native.getOpenClawVersionNative()) !== V2026_3_23) return absent(VISIBLE[name], text)
  for (const needle of NEEDLES[name]) if (text.includes(needle)) return false
  return true
}

// What `lookup` finds: none of the needles; one of them; no exact one, and the case-blind ones
// are left to the native call (a long text: V8's case-blind regex visits every character, the
// addon reads a one-byte string as it is and searches its lowercased blocks; measured in
// benchmark/reply-vs-openclaw96.mjs).
const NONE = 0
const FOUND = 1
const WORDS_LEFT = 2
const CASE_BLIND_IN_JS = 4096

/** Which of NONE / FOUND / WORDS_LEFT `text` is for `needles` (a 2026.9.6 scrubber's). */
function lookup(needles, text) {
  for (const needle of needles.exact) if (text.includes(needle)) return FOUND
  if (needles.ignoreCase === null) return NONE
  if (text.length < CASE_BLIND_IN_JS) return needles.ignoreCase.test(text) ? FOUND : NONE
  return WORDS_LEFT
}

/** Whether `text` holds none of `needles` (a 2026.9.6 scrubber's, see `VISIBLE`). */
function absent(needles, text) {
  const found = lookup(needles, text)
  return found === NONE || (found === WORDS_LEFT && !needles.ignoreCase.test(text))
}

function call(fn, args) {
  try {
    return fn(...args)
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

function stripMinimaxToolCallXml(text, options) {
  expectString(text, 'text')
  const { codeAware, openclawVersion } = pick(options, OPTIONS.scrubber, 'options')
  if (untouched('stripMinimaxToolCallXml', text, openclawVersion)) return text
  return joined(text, call(native.stripMinimaxToolCallXmlNative, [text, codeAware !== false, openclawVersion]))
}

function stripModelSpecialTokens(text, options) {
  expectString(text, 'text')
  const { codeAware, openclawVersion } = pick(options, OPTIONS.scrubber, 'options')
  if (untouched('stripModelSpecialTokens', text, openclawVersion)) return text
  return joined(text, call(native.stripModelSpecialTokensNative, [text, codeAware !== false, openclawVersion]))
}

// OpenClaw 2026.9.6's new reply scrubbers (src/scrub/visible/).
function stripRelevantMemoriesTags(text) {
  expectString(text, 'text')
  if (absent(VISIBLE.stripRelevantMemoriesTags, text)) return text
  return call(native.stripRelevantMemoriesTagsNative, [text]) ?? text
}

function stripAssistantInternalTraceLines(text) {
  expectString(text, 'text')
  const found = lookup(VISIBLE.stripAssistantInternalTraceLines, text)
  if (found === NONE) return text
  return call(native.stripAssistantInternalTraceLinesNative, [text, found === WORDS_LEFT]) ?? text
}

function stripToolCallXmlTags(text, options) {
  expectString(text, 'text')
  const o = pick(options, OPTIONS.toolCallXml, 'options')
  if (absent(VISIBLE.stripToolCallXmlTags, text)) return text
  return call(native.stripToolCallXmlTagsNative, [text, o.stripFunctionResponseAfterPluralToolCalls === true, o.stripFunctionCallsXmlPayloads === true]) ?? text
}

function stripLegacyBracketToolCallBlocks(text) {
  expectString(text, 'text')
  if (absent(VISIBLE.stripLegacyBracketToolCallBlocks, text)) return text
  return call(native.stripLegacyBracketToolCallBlocksNative, [text]) ?? text
}

function stripPlainTextToolCallBlocks(text, options) {
  expectString(text, 'text')
  const { codeAware } = pick(options, OPTIONS.plainTextToolCalls, 'options')
  if (absent(VISIBLE.stripPlainTextToolCallBlocks, text)) return text
  return call(native.stripPlainTextToolCallBlocksNative, [text, codeAware !== false]) ?? text
}

// promotePlainTextToolCallsNative's block codes (src/napi/visible.rs)
const OTHER_BLOCK = 0
const TOOL_CALL_BLOCK = 1
const UNREADABLE_BLOCK = 2

/** A content block as the native side reads it: a text block's text, or a code. */
function promotionPart(block) {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return UNREADABLE_BLOCK
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : UNREADABLE_BLOCK
  return block.type === 'toolCall' ? TOOL_CALL_BLOCK : OTHER_BLOCK
}

/** OpenClaw 2026.9.6's text-call promotion (src/scrub/visible/plain_tool_call/promote.rs). */
function promotePlainTextToolCalls(message, toolNames) {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) throw new TypeError(`message: expected an object, got ${describe(message)}`)
  const names = toolNames instanceof Set ? [...toolNames] : toolNames
  if (!Array.isArray(names)) throw new TypeError(`toolNames: expected an array or a Set of strings, got ${describe(toolNames)}`)
  names.forEach((n, i) => expectString(n, `toolNames[${i}]`))
  const content = message.content
  if (typeof content !== 'string' && !Array.isArray(content)) return null
  const parts = typeof content === 'string' ? content : content.map(promotionPart)
  const plan = call(native.promotePlainTextToolCallsNative, [parts, names])
  if (plan === null) return null
  const blocks = JSON.parse(plan).map((e) =>
    e.keep !== undefined ? content[e.keep] : { type: 'toolCall', id: e.id, name: e.name, arguments: e.arguments, partialArgs: JSON.stringify(e.arguments) },
  )
  return { ...message, content: blocks, stopReason: 'toolUse' }
}

/** OpenClaw 2026.9.6's delivery chain in one native call. */
function sanitizeAssistantVisibleText(text) {
  expectString(text, 'text')
  // Nothing for a step to remove and nothing to trim (`trim` removes JavaScript whitespace, as the
  // chain's last step does).
  const found = lookup(VISIBLE.sanitizeAssistantVisibleText, text)
  const trimmed = text.trim().length === text.length
  if (found === NONE && trimmed) return text
  return call(native.sanitizeAssistantVisibleTextNative, [text, found === WORDS_LEFT && trimmed]) ?? text
}

/** OpenClaw 2026.9.6's user-facing chain (`sanitizeUserFacingText`) in one native call. */
function sanitizeUserFacingText(text, options) {
  expectString(text, 'text')
  const { errorContext, conversationContext, streaming } = pick(options, OPTIONS.userFacingText, 'options')
  // A prompt to look for, or a stream to cut, always crosses; else: nothing for a step to
  // remove, and no leading whitespace for the blank-line step.
  const whole = conversationContext === undefined && streaming !== true
  const found = lookup(VISIBLE.sanitizeUserFacingText, text)
  const traces = errorContext === true ? lookup(VISIBLE.stripAssistantInternalTraceLines, text) : NONE
  if (whole && found === NONE && traces === NONE && !/^\s/.test(text)) return text
  const wordsOnly = whole && found === NONE && traces === WORDS_LEFT && !/^\s/.test(text)
  return call(native.sanitizeUserFacingTextNative, [text, errorContext === true, wordsOnly, conversationContext, streaming === true]) ?? text
}

/** The release every function that takes `openclawVersion` reproduces when a call names none. */
function setOpenClawVersion(version) {
  call(native.setOpenClawVersionNative, [OPENCLAW_VERSION(version, 'version')])
}

function getOpenClawVersion() {
  return native.getOpenClawVersionNative()
}

function stripDowngradedToolCallText(text, options) {
  expectString(text, 'text')
  const { codeAware, openclawVersion } = pick(options, OPTIONS.scrubber, 'options')
  if (untouched('stripDowngradedToolCallText', text, openclawVersion)) return text
  return joined(text, call(native.stripDowngradedToolCallTextNative, [text, codeAware !== false, openclawVersion]))
}

function reasoningOptions(options) {
  const { mode, trim, codeAware, openclawVersion, scope, recoverUnclosed } = pick(options, OPTIONS.reasoningTags, 'options')
  return [mode, trim, codeAware !== false, openclawVersion, scope, recoverUnclosed]
}

function stripReasoningTagsFromText(text, options) {
  expectString(text, 'text')
  const args = reasoningOptions(options)
  if (untouched('stripReasoningTagsFromText', text, args[3])) return text
  return joined(text, call(native.stripReasoningTagsNative, [text, ...args]))
}

function stripThinkingTagsFromText(text, options) {
  return stripReasoningTagsFromText(text, options)
}

// sanitizeResponseNative steps
const TOOL_CALLS = 1
const THINKING = 2

/** `options.fallback`: undefined (the default text), a non-blank string, or `false` (no fallback). */
function fallbackOption(options) {
  const o = expectOptions(options, 'options')
  if (o.fallback === undefined || o.fallback === false) return o.fallback
  if (typeof o.fallback !== 'string' || o.fallback.trim() === '') {
    throw new TypeError(`options.fallback: expected a non-blank string or false, got ${typeof o.fallback === 'string' ? JSON.stringify(o.fallback) : describe(o.fallback)}`)
  }
  return o.fallback
}

/** The native call's last two arguments for a checked fallback option. */
const fallbackArgs = (fallback) => (fallback === false ? [false, undefined] : [true, fallback])

function sanitizeToolCall(model, content, options) {
  expectString(model, 'model')
  expectString(content, 'content')
  const fallback = fallbackOption(options)
  return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS, undefined, ...fallbackArgs(fallback)]))
}

function sanitizeThinkingTags(content) {
  expectString(content, 'content')
  return joined(content, call(native.sanitizeResponseNative, ['', content, THINKING, undefined, false, undefined]))
}

function createResponseSanitizer(config) {
  const checked = pick(config, OPTIONS.sanitizerConfig, 'config')
  const json = toJson(checked, 'config')
  call(native.checkSanitizerConfig, [json])
  const enabled = checked.enabled !== false
  const enabledJson = JSON.stringify({ enabled })
  return Object.freeze({
    enabled,
    sanitizeToolCall(model, content, options) {
      expectString(model, 'model')
      expectString(content, 'content')
      const fallback = fallbackOption(options)
      return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS, json, ...fallbackArgs(fallback)]))
    },
    sanitizeThinkingTags(content, model) {
      expectString(content, 'content')
      if (model !== undefined) expectString(model, 'model')
      // Without a model only `enabled` applies (the seed's function takes no model).
      const cfg = model === undefined ? enabledJson : json
      return joined(content, call(native.sanitizeResponseNative, [model ?? '', content, THINKING, cfg, false, undefined]))
    },
    sanitize(model, content, options) {
      expectString(model, 'model')
      expectString(content, 'content')
      const fallback = fallbackOption(options)
      return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS | THINKING, json, ...fallbackArgs(fallback)]))
    },
  })
}

module.exports = {
  stripMinimaxToolCallXml,
  stripModelSpecialTokens,
  stripRelevantMemoriesTags,
  stripAssistantInternalTraceLines,
  stripLegacyBracketToolCallBlocks,
  stripPlainTextToolCallBlocks,
  sanitizeAssistantVisibleText,
  sanitizeUserFacingText,
  promotePlainTextToolCalls,
  stripToolCallXmlTags,
  setOpenClawVersion,
  getOpenClawVersion,
  stripDowngradedToolCallText,
  stripThinkingTagsFromText,
  stripReasoningTagsFromText,
  sanitizeToolCall,
  sanitizeThinkingTags,
  createResponseSanitizer,
}
