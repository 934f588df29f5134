'use strict'
// Outbound text scrubbers (OpenClaw's) and seed 000's sanitizer API. Argument checks only; every
// rule is in Rust (src/scrub/). A native call returns null when the text is unchanged (the
// caller's own string is returned), or the new text (see `joined` in args.js).

const native = require('../binding.js')
const { describe, joined, toJson } = require('./args.js')
const { OPTIONS, pick } = require('./options.js')

function expectString(value, name) {
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string, got ${describe(value)}`)
}

function expectOptions(options, name) {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${name}: expected an object, got ${describe(options)}`)
  return options
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
  const { codeAware } = pick(options, OPTIONS.scrubber, 'options')
  return joined(text, call(native.stripMinimaxToolCallXmlNative, [text, codeAware !== false]))
}

function stripModelSpecialTokens(text, options) {
  expectString(text, 'text')
  const { codeAware } = pick(options, OPTIONS.scrubber, 'options')
  return joined(text, call(native.stripModelSpecialTokensNative, [text, codeAware !== false]))
}

function stripDowngradedToolCallText(text, options) {
  expectString(text, 'text')
  const { codeAware } = pick(options, OPTIONS.scrubber, 'options')
  return joined(text, call(native.stripDowngradedToolCallTextNative, [text, codeAware !== false]))
}

const MODES = ['strict', 'preserve']
const TRIMS = ['none', 'start', 'both']

function reasoningOptions(options) {
  const o = expectOptions(options, 'options')
  const { mode, trim } = o
  if (mode !== undefined && !MODES.includes(mode)) throw new TypeError(`options.mode: expected 'strict' or 'preserve', got ${typeof mode === 'string' ? JSON.stringify(mode) : describe(mode)}`)
  if (trim !== undefined && !TRIMS.includes(trim)) throw new TypeError(`options.trim: expected 'none', 'start' or 'both', got ${typeof trim === 'string' ? JSON.stringify(trim) : describe(trim)}`)
  return [mode, trim]
}

function stripReasoningTagsFromText(text, options) {
  expectString(text, 'text')
  const [mode, trim] = reasoningOptions(options)
  return joined(text, call(native.stripReasoningTagsNative, [text, mode, trim]))
}

function stripThinkingTagsFromText(text, options) {
  expectString(text, 'text')
  const [mode, trim] = reasoningOptions(options)
  return joined(text, call(native.stripReasoningTagsNative, [text, mode, trim]))
}

// sanitizeResponseNative steps
const TOOL_CALLS = 1
const THINKING = 2

function fallbackOption(options) {
  const o = expectOptions(options, 'options')
  if (o.fallback === undefined) return undefined
  if (typeof o.fallback !== 'string' || o.fallback.trim() === '') {
    throw new TypeError(`options.fallback: expected a non-blank string, got ${typeof o.fallback === 'string' ? JSON.stringify(o.fallback) : describe(o.fallback)}`)
  }
  return o.fallback
}

function sanitizeToolCall(model, content, options) {
  expectString(model, 'model')
  expectString(content, 'content')
  const fallback = fallbackOption(options)
  return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS, undefined, true, fallback]))
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
      return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS, json, true, fallback]))
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
      return joined(content, call(native.sanitizeResponseNative, [model, content, TOOL_CALLS | THINKING, json, true, fallback]))
    },
  })
}

module.exports = {
  stripMinimaxToolCallXml,
  stripModelSpecialTokens,
  stripDowngradedToolCallText,
  stripThinkingTagsFromText,
  stripReasoningTagsFromText,
  sanitizeToolCall,
  sanitizeThinkingTags,
  createResponseSanitizer,
}
