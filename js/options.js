'use strict'
// The options every public function knows, with their types: the one table the wrappers check
// options against before anything crosses to Rust. Only the keys listed here are read from the
// caller's object (one property read each), so an unknown key costs nothing whatever it holds —
// a shared 40-level object, a cycle, a proxy, a getter. A known key of the wrong type is a
// TypeError naming it (`params.provider: expected a string, got an object`). What Rust receives is
// a fresh plain object of the checked values; free-form JSON (tool definitions) is copied within a
// budget of values, so no option costs time out of proportion to its size as JSON.

const { describe, toJson } = require('./args.js')

// ---- types: each is (value, path) => the checked value to send (undefined: leave it out) ----

/** Reads `o[k]`; a getter or proxy trap that throws becomes a TypeError naming the path. */
function read(o, k, path) {
  try {
    return o[k]
  } catch (err) {
    throw unreadable(path, err)
  }
}

const unreadable = (path, err) => new TypeError(`${path}: could not be read (${err && err.message ? err.message : String(err)})`)

const shown = (v) => (typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : describe(v))
const bad = (path, what, v) => new TypeError(`${path}: expected ${what}, got ${shown(v)}`)

const string = (v, path) => {
  if (typeof v !== 'string') throw bad(path, 'a string', v)
  return v
}
const boolean = (v, path) => {
  if (typeof v !== 'boolean') throw bad(path, 'a boolean', v)
  return v
}
const number = (v, path) => {
  if (typeof v !== 'number' || Number.isNaN(v)) throw bad(path, 'a number', v)
  return v
}
const nonBlank = (v, path) => {
  if (typeof v !== 'string' || v.trim() === '') throw bad(path, 'a non-blank string', v)
  return v
}
const fn = (v, path) => {
  if (typeof v !== 'function') throw bad(path, 'a function', v)
  return v
}
/** One of the listed strings. */
const oneOf = (...values) => {
  const what = values.map((s) => `'${s}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')
  return (v, path) => {
    if (!values.includes(v)) throw bad(path, what, v)
    return v
  }
}
/** The OpenClaw releases whose behaviour the functions reproduce (src/openclaw.rs). */
const OPENCLAW_VERSION = oneOf('2026.3.23', '2026.9.6')

/** `null` is accepted as well (and sent as null: "none"). */
const orNull = (type) => Object.assign((v, path) => (v === null ? null : type(v, path)), { schema: type.schema, map: type.map })

/** An array, a Set or another iterable of strings (OpenClaw passes a Set of tool names). */
function strings(v, path) {
  if (v === null || typeof v !== 'object' || typeof v[Symbol.iterator] !== 'function') {
    throw bad(path, 'an array or Set of strings', v)
  }
  const out = []
  let i = 0
  for (const s of v) {
    if (typeof s !== 'string') throw bad(`${path}[${i}]`, 'a string', s)
    out.push(s)
    i++
  }
  return out
}

/** An object checked against `schema` (its own options table, exposed as `.schema`). */
const object = (schema) => Object.assign((v, path) => pick(v, schema, path), { schema })

/** Free-form JSON data (tool definitions), as a plain tree: serialised within toJson's budget and parsed back. */
function json(v, path) {
  return JSON.parse(toJson(v, path))
}

/** An array whose elements are each checked by `type`. */
const arrayOf = (type) => (v, path) => {
  if (!Array.isArray(v)) throw bad(path, 'an array', v)
  const out = new Array(v.length)
  for (let i = 0; i < v.length; i++) out[i] = type(read(v, i, `${path}[${i}]`), `${path}[${i}]`)
  return out
}

/** A tool definition as JSON text: OpenAI's `{type, function: {name, parameters}}`, `{name, parameters}` or Anthropic's `{name, input_schema}`. */
function toolJson(v, path) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(path, 'a tool definition object', v)
  return toJson(v, path)
}

// An agent offers the same tools array on every call; copying it through JSON each time cost far
// more than cleaning a short reply. So a tools array is checked and copied once: the copy is kept
// per array (weakly) with the element objects it was made from, and reused while the array has
// the same length and the very same element objects. A tool object changed in place is not seen
// (README: pass a new object or a new array to change a tool). `toolTexts` holds the JSON text of
// each checked copy, so the options are not serialised again (optionsJson).
const toolLists = new WeakMap()
const toolTexts = new WeakMap()

/** Whether `v` still holds exactly the element objects of `items`. */
function unchanged(v, items, path) {
  if (v.length !== items.length) return false
  let i = 0
  try {
    for (; i < items.length; i++) if (v[i] !== items[i]) return false
  } catch (err) {
    throw unreadable(`${path}[${i}]`, err)
  }
  return true
}

/**
 * `make(items)` for the array `v` (`items`: its elements, read once), kept weakly in `kept` and
 * returned again while `v` has the same length and the very same element objects.
 */
function perArray(kept, v, path, make) {
  const k = kept.get(v)
  if (k !== undefined && unchanged(v, k.items, path)) return k.out
  const items = new Array(v.length)
  for (let i = 0; i < v.length; i++) items[i] = read(v, i, `${path}[${i}]`)
  const out = make(items)
  kept.set(v, { items, out })
  return out
}

/** An array of tool definitions (each as `toolJson`), checked and copied once per unchanged array. */
function tools(v, path) {
  if (!Array.isArray(v)) throw bad(path, 'an array', v)
  return perArray(toolLists, v, path, (items) => {
    const texts = items.map((t, i) => toolJson(t, `${path}[${i}]`))
    const out = texts.map((t) => JSON.parse(t))
    // The checked copy is what a wrapper passes on (ai-sdk, openai): it is found again as is.
    toolLists.set(out, { items: out.slice(), out })
    toolTexts.set(out, { text: `[${texts.join(',')}]`, rest: '', json: '' })
    return out
  })
}

/** A tool call the API returned: OpenAI's `{id?, type?, function: {name, arguments}}` or `{name, arguments}`. */
function toolCall(v, path) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(path, 'a tool call object', v)
  const f = read(v, 'function', `${path}.function`) ?? v
  if (f === null || typeof f !== 'object' || typeof read(f, 'name', `${path}.name`) !== 'string') throw bad(path, 'a tool call with a string name', v)
  return json(v, path)
}

/** An object used as a map: every own key's value checked by `type` (`providers: {minimax: {…}}`). */
const record = (type) =>
  Object.assign(
    (v, path) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(path, 'an object', v)
      const out = {}
      for (const k of Object.keys(v)) out[k] = type(read(v, k, `${path}.${k}`), `${path}.${k}`)
      return out
    },
    { map: type },
  )

// ---- the tables ----

const THOUGHT_SIGNATURES = { allowBase64Only: boolean, includeCamelCase: boolean }

const POLICY = {
  sanitizeMode: oneOf('full', 'images-only'),
  sanitizeToolCallIds: boolean,
  toolCallIdMode: orNull(oneOf('strict', 'strict9')),
  repairToolUseResultPairing: boolean,
  preserveSignatures: boolean,
  sanitizeThoughtSignatures: orNull(object(THOUGHT_SIGNATURES)),
  sanitizeThinkingSignatures: boolean,
  dropThinkingBlocks: boolean,
  applyGoogleTurnOrdering: boolean,
  validateGeminiTurns: boolean,
  validateAnthropicTurns: boolean,
  allowSyntheticToolResults: boolean,
  // 2026.9.6's provider plugins add these (read in openclawVersion '2026.9.6' mode only)
  dropReasoningFromHistory: boolean,
  preserveNativeAnthropicToolUseIds: boolean,
}

/** What 2026.9.6's policy reads of the resolved model object OpenClaw passes beside the ids. */
const MODEL = {
  reasoning: boolean,
  compat: object({ supportsReasoningEffort: boolean }),
  params: object({ canonicalModelId: string }),
}

const IMAGE_LIMITS = { maxDimensionPx: number, maxBytes: number, maxDecodeBytes: number }

const PAIRING = { preserveErroredAssistantResults: boolean, syntheticToolResultText: string, report: boolean }

const OPTIONS = {
  sanitizeSessionHistory: {
    provider: string,
    modelApi: string,
    modelId: string,
    sessionId: string,
    incremental: boolean,
    allowedToolNames: strings,
    policy: object(POLICY),
    model: object(MODEL),
    openclawVersion: OPENCLAW_VERSION,
    ...PAIRING,
    ...IMAGE_LIMITS,
  },
  sanitizeRequest: {
    protocol: string,
    provider: string,
    modelApi: string,
    modelId: string,
    model: object(MODEL),
    policy: object(POLICY),
    ...PAIRING,
    // the image step's limits (defaults per protocol: README "Gateways") and release
    ...IMAGE_LIMITS,
    openclawVersion: OPENCLAW_VERSION,
  },
  // provider, modelApi and modelId: any value, a non-string one counting as absent
  resolveTranscriptPolicy: { openclawVersion: OPENCLAW_VERSION, model: object(MODEL) },
  limitHistoryTurns: { openclawVersion: OPENCLAW_VERSION },
  validateAnthropicTurns: { openclawVersion: OPENCLAW_VERSION, mergeConsecutiveUserTurns: boolean },
  transcriptSessions: { maxSessions: number },
  repairToolCallInputs: { allowedToolNames: strings, report: boolean },
  sanitizeToolCallInputs: { allowedToolNames: strings },
  repairToolUseResultPairing: PAIRING,
  sanitizeToolUseResultPairing: PAIRING,
  applyGoogleTurnOrderingFix: { modelApi: string, sessionId: string },
  images: {
    ...IMAGE_LIMITS,
    // the release whose image step runs (its caps, base64 rules and error texts differ)
    openclawVersion: OPENCLAW_VERSION,
    sanitizeMode: oneOf('full', 'images-only'),
    sanitizeToolCallIds: boolean,
    toolCallIdMode: orNull(oneOf('strict', 'strict9')),
    preserveSignatures: boolean,
    sanitizeThoughtSignatures: orNull(object(THOUGHT_SIGNATURES)),
  },
  thoughtSignatures: THOUGHT_SIGNATURES,
  repairSessionFile: { backup: boolean, dryRun: boolean, warn: fn },
  sanitizerConfig: {
    enabled: orNull(boolean),
    providers: orNull(record(orNull(object({ stripToolCalls: orNull(boolean), stripThinkingTags: orNull(boolean) })))),
  },
  // stripMinimaxToolCallXml, stripModelSpecialTokens, stripDowngradedToolCallText; openclawVersion:
  // the OpenClaw release a function reproduces (absent: setOpenClawVersion's default)
  scrubber: { codeAware: boolean, openclawVersion: OPENCLAW_VERSION },
  toolCallXml: { stripFunctionResponseAfterPluralToolCalls: boolean, stripFunctionCallsXmlPayloads: boolean },
  // stripPlainTextToolCallBlocks (codeAware: false is OpenClaw's function called without options)
  plainTextToolCalls: { codeAware: boolean },
  // sanitizeUserFacingText (errorContext: the text is an error message, trace lines go too;
  // conversationContext: the prompt whose copies go; streaming: the reply is still arriving)
  userFacingText: { errorContext: boolean, conversationContext: string, streaming: boolean },
  // ConversationContextStreamCleaner (conversationContext: the prompt whose copies go)
  conversationContextStream: { conversationContext: string },
  // stripReasoningTagsFromText, stripThinkingTagsFromText
  reasoningTags: {
    mode: oneOf('strict', 'preserve'),
    trim: oneOf('none', 'start', 'both'),
    codeAware: boolean,
    openclawVersion: OPENCLAW_VERSION,
    scope: oneOf('all', 'leading'),
    recoverUnclosed: boolean,
  },
  cleanResponse: {
    format: string,
    model: string,
    tools,
    toolCalls: oneOf('extract', 'strip', 'keep'),
    thinking: oneOf('extract', 'strip', 'keep'),
    reasoningOpen: orNull(boolean),
    structuredToolCalls: arrayOf(toolCall),
  },
}
// The integrations (transcript-hygiene/ai-sdk, transcript-hygiene/openai) take the reply options
// the host does not give them itself.
const { structuredToolCalls: _calls, ...REPLY } = OPTIONS.cleanResponse
const { report: _report, ...PAIRING_RULES } = PAIRING
OPTIONS.toolCallRecovery = REPLY
OPTIONS.chatCompletion = REPLY
// The OpenClaw plugin's config (plugins.entries['transcript-hygiene'].config): seed 000's
// sanitizer config, the text sent when nothing visible is left, and whether the stored transcript
// is cleaned too. openclaw.plugin.json's configSchema says the same for OpenClaw (a test compares).
OPTIONS.openclawPlugin = { ...OPTIONS.sanitizerConfig, fallback: nonBlank, transcript: boolean }
OPTIONS.transcriptHygiene = {
  provider: string,
  modelApi: string,
  modelId: string,
  allowedToolNames: strings,
  policy: object(POLICY),
  openclawVersion: OPENCLAW_VERSION,
  ...PAIRING_RULES,
  ...IMAGE_LIMITS,
}

/**
 * The known keys of `options` checked against `schema`: a new plain object holding only them
 * (undefined values left out). `options` may be undefined or null (no options).
 */
function pick(options, schema, path) {
  if (options === undefined || options === null) return {}
  if (typeof options !== 'object' || Array.isArray(options)) throw bad(path, 'an object', options)
  const out = {}
  for (const k in schema) {
    const v = read(options, k, `${path}.${k}`)
    if (v === undefined) continue
    const checked = schema[k](v, `${path}.${k}`)
    if (checked !== undefined) out[k] = checked
  }
  return out
}

/**
 * `pick(options, schema, path)` as JSON text for a native call. A checked tools array is not
 * serialised again: its JSON text, kept when it was checked, is put in as it is, and the whole
 * text is kept for the last other options it went with (the same string each call then).
 */
function optionsJson(options, schema, path) {
  if (options === undefined || options === null) return '{}'
  const o = pick(options, schema, path)
  const kept = o.tools === undefined ? undefined : toolTexts.get(o.tools)
  if (kept === undefined) return toJson(o, path)
  // Tools alone (the common case) need no serialising at all.
  let alone = true
  for (const k in o) if (k !== 'tools') alone = false
  o.tools = undefined
  const rest = alone ? '{}' : toJson(o, path)
  if (kept.json === '' || kept.rest !== rest) {
    kept.rest = rest
    kept.json = rest === '{}' ? `{"tools":${kept.text}}` : `{"tools":${kept.text},${rest.slice(1)}`
  }
  return kept.json
}

module.exports = { OPTIONS, OPENCLAW_VERSION, pick, json, optionsJson, perArray }
