'use strict'
// The thin JS half of the transcript boundary (see ARCHITECTURE.md, "The boundary is the cost").
//
// encode() reads, in one pass, only the fields the Rust rules decide on and writes them into one
// string; the native call returns a plan; apply() builds the result from it with spreads, so every
// message and block no rule touched comes back as the very same object. No rule logic lives here:
// the layout below is mirrored field for field by src/transcript/skeleton.rs.

const native = require('../binding.js')
const { describe, isObject: isPlainObject } = require('./args.js')

const SEP = '\x1f'
const HEAD_IMAGE = 1024
const HEAD_TEXT = 4096
const SHORT_TEXT = 64

// The skeleton travels in three channels. `nums` (a Uint32Array: the codes) carries structure,
// kinds, counts, lengths and masks; `reals` (a Float64Array) carries the numbers a value holds
// and a usage's numbers, exactly as they are (a timestamp, -0, 1.5, NaN); `strs` (a Uint8Array)
// carries the UTF-8 of the strings that are not in VOCAB, each preceded by SEP. Writing codes and
// bytes into typed arrays instead of building a string field by field keeps the codec almost free
// of allocation, which is what makes it cheap. A code crossing as an f64 (one channel for all)
// cost Rust a bounds check, a saturating cast and its round trip each, and 8 bytes where 4 do.
// src/transcript/skeleton.rs mirrors it.
//
// Value codes: 0 undefined, 1 null, 2 true, 3 false, 4 object, 5 array, 6 other (function,
// symbol, bigint), 7 number (the next slot of `reals` holds it), 8 string (the next slot holds its length,
// so Rust slices an ASCII one out of `strs` without searching for the next SEP), 9 string
// holding SEP (the next string is its JSON), 10 string whose payload is not sent, 15 number whose
// value is not sent, 16 + i the string VOCAB[i].
// The vocabulary and the structure codes are defined once, in src/transcript/skeleton.rs.
const CODES = native.transcriptSkeletonCodes()

// Strings made by Node-API are not internalised: every comparison of one with the caller's
// strings (a role, a block type, a usage key) and every map lookup keyed by one compared
// characters, and a property written under one looked it up in the string table first. A
// property key is always internalised, so reading a word back as one gives the string V8
// compares by identity (a tenth of the skeleton's instructions were these comparisons).
const internal = (w) => Object.keys({ [w]: 0 })[0]
const VOCAB = CODES.vocab.map(internal)
const CODE = new Map()
VOCAB.forEach((w, i) => {
  if (!CODE.has(w)) CODE.set(w, 16 + i)
})

// Roles and block types are compared with the words they mostly are before any map lookup: a
// comparison of internalised strings is one of addresses, where the lookup hashed and probed (the
// lookups were an eighth of the skeleton's instructions, two in three of them for these words).
function codeOf(w) {
  const c = CODE.get(w)
  if (c === undefined) throw new Error(`codec: ${JSON.stringify(w)} is not in the vocabulary`)
  return c
}
const ROLE_USER = codeOf('user')
const ROLE_ASSISTANT = codeOf('assistant')
const ROLE_TOOL_RESULT = codeOf('toolResult')
const TYPE = {
  text: codeOf('text'),
  thinking: codeOf('thinking'),
  redactedThinking: codeOf('redacted_thinking'),
  toolCall: codeOf('toolCall'),
  toolUse: codeOf('toolUse'),
  functionCall: codeOf('functionCall'),
  image: codeOf('image'),
  toolResult: codeOf('toolResult'),
}
const T_TEXT = TYPE.text
const T_THINKING = TYPE.thinking
const T_REDACTED = TYPE.redactedThinking
const T_TOOL_CALL = TYPE.toolCall
const T_TOOL_USE = TYPE.toolUse
const T_FUNCTION_CALL = TYPE.functionCall
const T_IMAGE = TYPE.image
const T_TOOL_RESULT = TYPE.toolResult

// A value at a call site that mostly sees one word again and again (a stop reason, a tool name):
// the last word found there and its code, compared before the map is asked.
// (Each starts as a true pair: the first word and its code.)
const siteWord = [VOCAB[0], VOCAB[0], VOCAB[0]]
const siteCode = [16, 16, 16]
const SITE_STOP = 0
const SITE_TOOL_NAME = 1
const SITE_CALL_NAME = 2

function word(v, site) {
  if (typeof v === 'string') {
    if (v === siteWord[site]) {
      nums[n++] = siteCode[site]
      return
    }
    const c = CODE.get(v)
    if (c !== undefined) {
      nums[n++] = c
      siteWord[site] = v
      siteCode[site] = c
    } else {
      str(v)
    }
  } else {
    val(v)
  }
}

// Structure codes. Those that can stand where a value could (content, text, data) are kept
// apart from the value codes: 11 and up.
const MESSAGE = CODES.message
const BLOCK = CODES.block
const NOT_OBJECT = CODES.notObject
const TEXT = CODES.text // then blank (0/1), length
const TEXT_HEAD = CODES.textHead // then blank, length, and a string value with the head
const ARRAY = CODES.array // then the count
const NO_ARGUMENT_KEYS = CODES.noArgumentKeys // a call's arguments key count when they are not an object
const DATA = CODES.data // then the length, a string value with the head, and the remembered digest (a value)
// Message fields only OpenClaw 2026.9.6's rules read: sent (mask bit 512, then a mask of the
// present ones and their values) only when encode() is asked for them. `extraFields` reads them
// by name (a keyed read of a different name per field, per message, cost a tenth of a 2026.9.6
// call); the list and its order are Rust's (`a.b` is field b of object field a), checked here once.
const EXTRA_FIELDS = ['tool_call_id', 'tool_use_id', 'callId', 'call_id', 'isError', 'provider', 'model', 'openclawDeliveryMirror.kind', '__openclaw.media', 'name', 'providerReplay.type', 'providerReplay.replayIndex']
if (CODES.extraFields.join() !== EXTRA_FIELDS.join()) throw new Error('codec: the 2026.9.6 message fields changed; update extraFields()')
const RESULT_BLOCK_ID_FIELDS = ['toolCallId', 'tool_use_id', 'tool_call_id', 'callId', 'call_id']
if (CODES.resultBlockIdFields.join() !== RESULT_BLOCK_ID_FIELDS.join()) throw new Error('codec: the 2026.9.6 result block id fields changed; update resultIds()')
var extras = false
// In that mode an assistant text holding one of the needles, or opening with one of the leads (ASCII
// case ignored), goes whole: a rule reads it. Each needle is looked for from its anchor, its first
// character that is neither a letter nor a digit nor a space (`_`, `<`, `:` …): `indexOf` finds
// those fast, and an ordinary text holds few of them, where one case-insensitive regex of all the
// needles stepped through every character of every assistant text (a tenth of a 2026.9.6 call).
const asciiLower = (w) => w.replace(/[A-Z]/g, (c) => c.toLowerCase())
const NEEDLES = CODES.wholeAssistantTextNeedles.map((w) => {
  const lower = asciiLower(w)
  const at = lower.search(/[^a-z0-9\s]/)
  if (at < 0) throw new Error(`codec: needle ${JSON.stringify(w)} has no anchor character`)
  return { lower, at, anchor: lower[at] }
})
const ANCHORS = [...new Set(NEEDLES.map((x) => x.anchor))].map((anchor) => ({ anchor, needles: NEEDLES.filter((x) => x.anchor === anchor) }))
const LEADS = CODES.wholeAssistantTextLeads.map(asciiLower)

// Whether `v` holds `lower` (lowercase) at `start`, ASCII case ignored.
function holdsAt(v, start, lower) {
  if (start < 0 || start + lower.length > v.length) return false
  for (let k = 0; k < lower.length; k++) {
    let c = v.charCodeAt(start + k)
    if (c >= 65 && c <= 90) c += 32
    if (c !== lower.charCodeAt(k)) return false
  }
  return true
}

function wholeText(v) {
  for (let k = 0; k < LEADS.length; k++) if (holdsAt(v, 0, LEADS[k])) return true
  for (let a = 0; a < ANCHORS.length; a++) {
    const { anchor, needles } = ANCHORS[a]
    for (let i = v.indexOf(anchor); i !== -1; i = v.indexOf(anchor, i + 1)) {
      for (let k = 0; k < needles.length; k++) if (holdsAt(v, i - needles[k].at, needles[k].lower)) return true
    }
  }
  return false
}
var assistant = false

// The fields this encode leaves out, written as absent (code 0): no rule of the call reads them
// (the bits of src/transcript/read_set.rs, which decides; js/read-set.js asks it).
const UNREAD_THINKING_TEXT = CODES.unreadThinkingText
const UNREAD_THINKING_SIGNATURE = CODES.unreadThinkingSignature
const UNREAD_THOUGHT_SIGNATURES = CODES.unreadThoughtSignatures
var unread = 0

// Image payload digests Rust computed for the process-wide image cache, per block object:
// block → [the data string hashed, its digest]. A later call with the same block and the same
// string sends the digest, and Rust answers from the cache without reading or hashing the
// payload again. Weak, so it holds nothing the caller has let go of; a block whose data was
// replaced no longer matches (the string is compared, by identity first).
const DIGESTS = new WeakMap()

// The codec's working state is `var`, not `let`: a `let` read from a function is checked for its
// temporal dead zone on every access, and the skeleton's hot loop reads `nums` and `n` a few
// dozen times a message (with `let`, 8% more instructions per skeleton). `nums`/`n`: the codes;
// `reals`/`r`: the numbers.
var nums = new Uint32Array(4096)
var n = 0
var reals = new Float64Array(1024)
var r = 0
// The string channel: its pieces, joined once at the end of encode() (each after a SEP: the first
// piece is empty), and the length the joined string will have (for the marks). The joined string
// is then written as UTF-8 into `bytes`, kept between calls, in one call: it crosses as bytes
// Rust borrows. Built by appending each string to one string, it was a rope of two cons cells a
// string, which Node-API flattened (a copy through the tree), measured and transcoded into a
// fresh Rust string: ~0.29 M instructions of a 6.4 M full pass at 1,000 messages, and ~560 KB of
// garbage a call at 10,000. (Writing each string's bytes from JS, a `charCodeAt` loop, costs ~30
// instructions a character in V8: more than all of that.)
var parts = ['']
var strLen = 0
var bytes = new Uint8Array(1 << 16)
const UTF8 = new TextEncoder()
// A buffer grown past this (a 2026.9.6 skeleton sends some texts whole) is not kept for the next call.
const KEEP_BYTES = 1 << 24

// Room for `k` more slots in each channel: every slot the codec writes is one of either (a
// number is its code and its real), so a span a `room(k)` covers writes at most `k` into each.
function room(k) {
  if (n + k > nums.length || r + k > reals.length) grow(k)
}

function grow(k) {
  if (n + k > nums.length) {
    const bigger = new Uint32Array(Math.max(nums.length * 2, n + k))
    bigger.set(nums)
    nums = bigger
  }
  if (r + k > reals.length) {
    const bigger = new Float64Array(Math.max(reals.length * 2, r + k))
    bigger.set(reals)
    reals = bigger
  }
}

function str(v) {
  if (v.indexOf(SEP) === -1) {
    nums[n++] = 8
    nums[n++] = v.length
    parts.push(v)
    strLen += v.length + 1
  } else {
    nums[n++] = 9
    const json = JSON.stringify(v.isWellFormed() ? v : toPrivate(v))
    parts.push(json)
    strLen += json.length + 1
  }
}

// Lone surrogates cannot cross into Rust (its strings are UTF-8; Node-API would make each one
// U+FFFD, so ids `'a\uD800'` and `'a\uD801'` would become equal). Unit 0xD800 + k crosses as the
// code point BASE + k of plane 16's private use area (src/transcript/skeleton.rs defines BASE),
// distinct and, like a surrogate, neither letter nor digit; a value Rust sends back gets them back
// (`fromPrivate`). Known limit: in a call whose messages hold a lone surrogate, a character of
// that block that Rust writes back becomes a lone surrogate.
const BASE = CODES.loneSurrogateBase
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const hi = (cp) => String.fromCharCode(0xd800 + ((cp - 0x10000) >> 10))
const PRIVATE = new RegExp(`[${hi(BASE)}-${hi(BASE + 0x7ff)}][\\uDC00-\\uDFFF]`, 'g')

function toPrivate(s) {
  return s.replace(LONE, (u) => String.fromCodePoint(BASE + u.charCodeAt(0) - 0xd800))
}

/** The inverse of `toPrivate`, for strings and, as a JSON.parse reviver, for plan values. */
function fromPrivate(k, v) {
  return typeof v === 'string' && v.length > 1 ? v.replace(PRIVATE, (c) => String.fromCharCode(c.codePointAt(0) - BASE + 0xd800)) : v
}

function val(v) {
  // Tests of `typeof` against a literal compile to a type check; a `switch (typeof v)` built the
  // type's name and compared it.
  if (typeof v === 'string') {
    const c = CODE.get(v)
    if (c !== undefined) nums[n++] = c
    else str(v)
  } else if (typeof v === 'object') {
    nums[n++] = v === null ? 1 : Array.isArray(v) ? 5 : 4
  } else if (typeof v === 'number') {
    nums[n++] = 7
    reals[r++] = v
  } else if (v === undefined) {
    nums[n++] = 0
  } else if (typeof v === 'boolean') {
    nums[n++] = v ? 2 : 3
  } else {
    nums[n++] = 6
  }
}

// A value whose strings are never vocabulary words (ids, signatures): a string goes as itself,
// without the vocabulary lookup (a hash-map miss per id). Sending a vocabulary word this way is
// still correct, only longer.
function plain(v) {
  if (typeof v === 'string') str(v)
  else val(v)
}

// The kind of a value only: strings and numbers carry no payload.
function kind(v) {
  if (typeof v === 'string') nums[n++] = 10
  else if (typeof v === 'number') nums[n++] = 15
  else val(v)
}

// `v.trim() === ''`, without calling trim when the first character settles it (the common case:
// a text that starts with a visible ASCII character).
function blank(v) {
  if (v.length === 0) return true
  const c = v.charCodeAt(0)
  if (c > 32 && c < 160) return false
  return v.trim() === ''
}

// Whether a string's first character after JS whitespace is `{`.
function opensObject(v) {
  const c = v.charCodeAt(0)
  if (c > 32 && c < 160) return c === 123
  return v.trimStart().charCodeAt(0) === 123
}

// A text-like string: its blank flag and length, and its head when asked for (or, for string
// content, when short).
function text(v, wantHead, shortHead, wholeIfNeedle = false) {
  if (typeof v !== 'string') {
    kind(v)
    return
  }
  const whole = wholeIfNeedle && v.length > SHORT_TEXT && wholeText(v)
  const head = wantHead || whole || (shortHead && v.length <= SHORT_TEXT)
  nums[n++] = head ? TEXT_HEAD : TEXT
  nums[n++] = blank(v) ? 1 : 0
  nums[n++] = v.length
  if (head) str(v.length > HEAD_TEXT && !whole ? v.slice(0, HEAD_TEXT) : v)
}

function block(b, wantHead) {
  room(32)
  if (!isPlainObject(b)) {
    nums[n++] = NOT_OBJECT
    val(b)
    return
  }
  const type = b.type
  nums[n++] = BLOCK
  // Each case writes its word's code; a type no case names goes through `val`.
  switch (type) {
    case 'text':
      nums[n++] = T_TEXT
      text(b.text, wantHead, extras, assistant)
      // 2026.9.6 reduces an OpenAI Responses text signature to its phase after a model switch.
      if (extras) signature(b.textSignature)
      signatures(b)
      break
    case 'thinking': {
      nums[n++] = T_THINKING
      if ((unread & UNREAD_THINKING_TEXT) !== 0) nums[n++] = 0
      else text(b.thinking, false, false)
      if ((unread & UNREAD_THINKING_SIGNATURE) !== 0) {
        nums[n++] = 0
      } else {
        const sig = b.thinkingSignature
        if (isPlainObject(sig)) {
          nums[n++] = 4
          val(sig.id)
          val(sig.type)
        } else {
          signature(sig)
        }
      }
      if (extras) presence(b.signature)
      signatures(b)
      break
    }
    case 'redacted_thinking':
      nums[n++] = T_REDACTED
      if (extras) {
        presence(b.signature)
        presence(b.thinkingSignature)
        presence(b.data)
      }
      signatures(b)
      break
    case 'toolCall':
    case 'toolUse':
    case 'functionCall':
      nums[n++] = type === 'toolCall' ? T_TOOL_CALL : type === 'toolUse' ? T_TOOL_USE : T_FUNCTION_CALL
      plain(b.id)
      word(b.name, SITE_CALL_NAME)
      kind(b.input)
      kind(b.arguments)
      if (extras) {
        // 2026.9.6 drops a call still carrying partialJson unless it is a finished Responses call.
        const partial = b.partialJson
        plain(partial)
        if (typeof partial === 'string') nums[n++] = isPlainObject(b.arguments) ? Object.keys(b.arguments).length : NO_ARGUMENT_KEYS
      }
      signatures(b)
      break
    case 'image': {
      nums[n++] = T_IMAGE
      const d = b.data
      if (typeof d === 'string') {
        nums[n++] = DATA
        nums[n++] = d.length
        str(d.length > HEAD_IMAGE ? d.slice(0, HEAD_IMAGE) : d)
        const memo = DIGESTS.get(b)
        if (memo !== undefined && memo[0] === d) str(memo[1])
        else nums[n++] = 0
      } else {
        kind(d)
      }
      val(b.mimeType)
      signatures(b)
      break
    }
    case 'toolResult':
      nums[n++] = T_TOOL_RESULT
      plain(b.toolUseId)
      if (extras) resultIds(b)
      signatures(b)
      break
    case 'tool':
      val(type)
      if (extras) {
        plain(b.toolUseId)
        resultIds(b)
      }
      signatures(b)
      break
    default:
      val(type)
      signatures(b)
  }
}

// A result block's other id fields (2026.9.6 matches results through each): a mask, then the
// present ones.
function resultIds(b) {
  room(1 + 2 * RESULT_BLOCK_ID_FIELDS.length)
  const at = n++
  nums[at] = extra(b.toolCallId, 1) | extra(b.tool_use_id, 2) | extra(b.tool_call_id, 4) | extra(b.callId, 8) | extra(b.call_id, 16)
}

// A signature: rules read a string signature's text only when it holds JSON (`{…}`: an OpenAI
// reasoning item, a Responses text phase); any other (an Anthropic signature is hundreds to
// thousands of characters) goes as its blankness and length.
function signature(sig) {
  if (typeof sig === 'string' && !opensObject(sig)) presence(sig)
  else plain(sig)
}

// A field 2026.9.6 reads only for presence and blankness (signatures, redacted data): a string
// goes as its blank flag and length, anything else as its kind.
function presence(v) {
  text(v, false, false)
}

// Gemini's thought signatures, which may sit on any block: a mask, then the present ones.
function signatures(b) {
  if ((unread & UNREAD_THOUGHT_SIGNATURES) !== 0) {
    nums[n++] = 0
    return
  }
  const snake = b.thought_signature
  const camel = b.thoughtSignature
  if (snake === undefined && camel === undefined) {
    nums[n++] = 0
    return
  }
  nums[n++] = (snake !== undefined ? 1 : 0) | (camel !== undefined ? 2 : 0)
  if (snake !== undefined) plain(snake)
  if (camel !== undefined) plain(camel)
}

// A small object (usage) one level deep: 4, the count, then key/value pairs; a nested object
// value is 4, its count and its pairs again (deeper objects are sent by kind only).
// Usage objects repeat the same keys in the same order: the code found at each position is
// remembered, so most keys cost one comparison instead of a map lookup.
const keySeen = new Array(32).fill(undefined)
const keyCode = new Array(32).fill(0)

function key(k, slot) {
  if (keySeen[slot] === k) {
    nums[n++] = keyCode[slot]
    return
  }
  const c = CODE.get(k)
  if (c === undefined) {
    str(k)
    return
  }
  nums[n++] = c
  keySeen[slot] = k
  keyCode[slot] = c
}

function object(u, deep) {
  nums[n++] = 4
  const countAt = n++
  let count = 0
  for (const k in u) {
    const v = u[k]
    room(8)
    if (count < 16) key(k, deep ? count : 16 + count)
    else val(k)
    if (deep && isPlainObject(v)) object(v, false)
    else val(v)
    count++
  }
  nums[countAt] = count
}

// A usage in pi-ai's normalised shape (what nearly every assistant carries) goes as its numbers:
// USAGE, 0 or 1 (a cost follows), the counts, the cost's. Its fields are read by name (a keyed
// read per key in `object` cost more than the rest of the message); the names are Rust's
// (src/transcript/skeleton.rs), checked here once.
const USAGE = CODES.usage
const USAGE_KEYS = CODES.usageKeys.map(internal)
const COST_KEYS = CODES.costKeys.map(internal)
if (USAGE_KEYS.join() !== 'input,output,cacheRead,cacheWrite,totalTokens' || COST_KEYS.join() !== 'input,output,cacheRead,cacheWrite,total') {
  throw new Error('codec: the normalised usage keys changed; update usageNumbers()')
}

// How many keys `o` has past `keys` (0, or 1 when the next is `last`), or -1 when its enumerable
// keys are not `keys` in order, then maybe `last`.
function keysAre(o, keys, last) {
  let k = 0
  for (const key in o) {
    if (k < keys.length ? key !== keys[k] : k > keys.length || key !== last) return -1
    k++
  }
  return k < keys.length ? -1 : k - keys.length
}

const finite = Number.isFinite

function usageNumbers(u) {
  const cost = keysAre(u, USAGE_KEYS, 'cost')
  if (cost < 0) return false
  const input = u.input
  const output = u.output
  const cacheRead = u.cacheRead
  const cacheWrite = u.cacheWrite
  const totalTokens = u.totalTokens
  if (!(input >= 0 && finite(input) && finite(output) && finite(cacheRead) && finite(cacheWrite) && finite(totalTokens))) return false
  if (cost === 0) {
    room(8)
    nums[n++] = USAGE
    nums[n++] = 0
  } else {
    const c = u.cost
    if (!isPlainObject(c) || keysAre(c, COST_KEYS) !== 0) return false
    const ci = c.input
    const co = c.output
    const cr = c.cacheRead
    const cw = c.cacheWrite
    const ct = c.total
    if (!(finite(ci) && finite(co) && finite(cr) && finite(cw) && finite(ct))) return false
    room(13)
    nums[n++] = USAGE
    nums[n++] = 1
    reals[r + 5] = ci
    reals[r + 6] = co
    reals[r + 7] = cr
    reals[r + 8] = cw
    reals[r + 9] = ct
  }
  reals[r++] = input
  reals[r++] = output
  reals[r++] = cacheRead
  reals[r++] = cacheWrite
  reals[r++] = totalTokens
  if (cost !== 0) r += 5
  return true
}

// `bit` when `x` is present (and sent), else 0.
function extra(x, bit) {
  if (x === undefined) return 0
  plain(x)
  return bit
}

function extraFields(m) {
  room(2 + 2 * EXTRA_FIELDS.length)
  const at = n++
  const mirror = m.openclawDeliveryMirror
  const own = m.__openclaw
  const replay = m.providerReplay
  // `|` evaluates left to right: the values go in the list's order.
  nums[at] =
    extra(m.tool_call_id, 1) |
    extra(m.tool_use_id, 2) |
    extra(m.callId, 4) |
    extra(m.call_id, 8) |
    extra(m.isError, 16) |
    extra(m.provider, 32) |
    extra(m.model, 64) |
    extra(isPlainObject(mirror) ? mirror.kind : undefined, 128) |
    extra(isPlainObject(own) ? own.media : undefined, 256) |
    extra(m.name, 512) |
    extra(isPlainObject(replay) ? replay.type : undefined, 1024) |
    extra(isPlainObject(replay) ? stringIfArray(replay.replayIndex) : undefined, 2048)
}

// An array goes as its string form (`String(v)`: what JS's `Number` reads of it), a value that has
// none (a symbol inside) as "NaN"; the rest as it is.
function stringIfArray(v) {
  if (!Array.isArray(v)) return v
  try {
    return String(v)
  } catch {
    return 'NaN'
  }
}

// Optional message fields, sent only when present; a mask says which.
function message(m) {
  room(48)
  if (!isPlainObject(m)) {
    nums[n++] = NOT_OBJECT
    val(m)
    return
  }
  nums[n++] = MESSAGE
  const role = m.role
  if (role === 'assistant') nums[n++] = ROLE_ASSISTANT
  else if (role === 'user') nums[n++] = ROLE_USER
  else if (role === 'toolResult') nums[n++] = ROLE_TOOL_RESULT
  else val(role)
  assistant = extras && role === 'assistant'
  const stopReason = m.stopReason
  const timestamp = m.timestamp
  const toolCallId = m.toolCallId
  const toolUseId = m.toolUseId
  const toolName = m.toolName
  const errorMessage = m.errorMessage
  const p = m.provenance
  const u = m.usage
  const mask =
    (stopReason !== undefined ? 1 : 0) |
    (timestamp !== undefined ? 2 : 0) |
    (toolCallId !== undefined ? 4 : 0) |
    (toolUseId !== undefined ? 8 : 0) |
    (toolName !== undefined ? 16 : 0) |
    (errorMessage !== undefined ? 32 : 0) |
    ('details' in m ? 64 : 0) |
    (p !== undefined ? 128 : 0) |
    (u !== undefined ? 256 : 0) |
    (extras ? 512 : 0)
  nums[n++] = mask
  if (mask & 1) word(stopReason, SITE_STOP)
  if (mask & 2) val(timestamp)
  if (mask & 4) plain(toolCallId)
  if (mask & 8) plain(toolUseId)
  if (mask & 16) word(toolName, SITE_TOOL_NAME)
  if (mask & 32) val(errorMessage)
  const wantHead = isPlainObject(p)
  if (mask & 128) {
    if (wantHead) {
      nums[n++] = 4
      val(p.kind)
      val(p.sourceSessionKey)
      val(p.sourceChannel)
      val(p.sourceTool)
    } else {
      kind(p)
    }
  }
  if (mask & 256) {
    if (!isPlainObject(u)) kind(u)
    else if (!usageNumbers(u)) object(u, true)
  }
  if (extras) extraFields(m)
  room(8)
  const c = m.content
  if (Array.isArray(c)) {
    nums[n++] = ARRAY
    nums[n++] = c.length
    for (let j = 0; j < c.length; j++) {
      pathBlock = j
      block(c[j], wantHead)
    }
    pathBlock = -1
  } else {
    text(c, wantHead, true, assistant)
  }
}

// Where encode() was when a getter threw, for the error message.
var pathMsg = -1
var pathBlock = -1

function pathOf(name, i, j) {
  return j >= 0 ? `${name}[${i}].content[${j}]` : `${name}[${i}]`
}

// Where each message's skeleton begins (encode's `withMarks`): `marks[3i]` in `codes`, `marks[3i + 1]`
// in `reals`, `marks[3i + 2]` in `strs` (bytes); slot `3 * messages.length` is the end.
var marks = new Float64Array(256)

/**
 * The skeleton of a message array: `{ codes, reals, strs, lone }` (`codes` a Uint32Array, `reals`
 * a Float64Array, `strs` a Uint8Array: views valid until the next encode; `lone` whether a lone
 * surrogate was mapped).
 * Throws a TypeError naming the path when a message cannot be read (a getter that throws, a
 * revoked proxy). `withExtras`: send the 2026.9.6-only message fields too. `withMarks`: the
 * result's `marks` say where each message's skeleton begins (valid until the next encode).
 * `leaveOut`: the bits of the fields no rule of the call reads (js/read-set.js), sent as absent.
 */
function encode(messages, name = 'messages', withExtras = false, withMarks = false, leaveOut = 0) {
  extras = withExtras
  unread = leaveOut
  if (!Array.isArray(messages)) {
    throw new TypeError(`${name}: expected an array of messages, got ${describe(messages)}`)
  }
  n = 0
  r = 0
  parts = ['']
  strLen = 0
  room(2)
  nums[n++] = messages.length
  pathMsg = -1
  pathBlock = -1
  try {
    if (withMarks && marks.length < 3 * messages.length + 3) marks = new Float64Array(6 * messages.length + 3)
    for (let i = 0; i < messages.length; i++) {
      pathMsg = i
      if (withMarks) {
        marks[3 * i] = n
        marks[3 * i + 1] = r
        marks[3 * i + 2] = strLen
      }
      message(messages[i])
    }
    if (withMarks) {
      marks[3 * messages.length] = n
      marks[3 * messages.length + 1] = r
      marks[3 * messages.length + 2] = strLen
    }
  } catch (err) {
    parts = ['']
    const e = new TypeError(`${pathOf(name, pathMsg, pathBlock)}: could not be read (${err && err.message ? err.message : String(err)})`)
    e.cause = err
    throw e
  }
  const joined = parts.length === 1 ? '' : parts.join(SEP)
  // Not kept: the pieces are the caller's strings.
  parts = ['']
  // One check for the whole string channel; the rare skeleton with a lone surrogate is mapped.
  const lone = !joined.isWellFormed()
  const text = lone ? toPrivate(joined) : joined
  // At most 3 bytes a UTF-16 unit.
  if (bytes.length > KEEP_BYTES || 3 * text.length > bytes.length) bytes = new Uint8Array(Math.max(1 << 16, 3 * text.length))
  const written = UTF8.encodeInto(text, bytes).written
  // Marks count UTF-16 units; bytes differ only past ASCII (with a lone surrogate the marks are
  // not used: the session cannot keep such a skeleton).
  if (withMarks && written !== text.length && !lone) byteMarks(text, messages.length)
  return { codes: nums.subarray(0, n), reals: reals.subarray(0, r), strs: bytes.subarray(0, written), lone, marks: withMarks ? marks : null }
}

// The marks' offsets in `text` (UTF-16 units, ascending, each at a string's start) as offsets in
// its UTF-8.
function byteMarks(text, count) {
  let unit = 0
  let byte = 0
  for (let i = 0; i <= count; i++) {
    const to = marks[3 * i + 2]
    for (; unit < to; unit++) {
      const c = text.charCodeAt(unit)
      if (c < 0x80) byte += 1
      else if (c < 0x800) byte += 2
      else if (c >= 0xd800 && c <= 0xdbff) {
        // A pair (the text is well-formed): 4 bytes for both units.
        byte += 4
        unit++
      } else byte += 3
    }
    marks[3 * i + 2] = byte
  }
}

// ---- plan application ----
//
// The plan travels in two channels, read with two cursors: `plan.nums` (a Float64Array) holds
// every count, index, kind and known field name, `plan.vals` (parsed JSON) every other string
// and value, in the order they are met. Message entries (n: from nums, v: from vals):
//   n i >= 0                          input message i, as it is
//   n -1, n m, sets, dels, content    a copy of input message m (m = -1: a new object)
// sets: n count, then per set: name, n kind, payload —
//   0: v value | 1: n k (input message k's field) | 2: v prefix, n k (prefix + that field)
//   | 3: (the built content) | 4: v list, v items, v key, v value (see setInItems)
//   | 5: n length, t text (a new string value: the next `length` UTF-16 units of `plan.texts`
//     after its separator; sliced out by its length, neither JSON-parsed nor split)
//   | 6: v value (set and moved last: `{...rest, [name]: value}`)
//   | 7: v key, v value (in the field's object: `{...field, [key]: value}`)
// dels: n count, then names. A name is n i >= 0 (FIELDS[i]) or n -1, v name.
// content: n -1 (untouched) or n count, then blocks:
//   n j >= 0 own block j | n -1, n msg, n idx, sets, dels, v prefix|null (a copy of that block)
//   | n -2, v value (a new block) | n -3, n msg, v prefix (a text block from message msg's
//   string content)

var f = null
var at = 0
var v = null
var vi = 0
var t = ''
var ti = 0
// Whether the plan's texts hold lone surrogates' private-use stand-ins (see `fromPrivate`).
var tLone = false

// The answer's header (HEAD slots, src/napi/transcript.rs) and the plan's numbers arrive in this
// buffer (kept across calls); numbers that did not fit are fetched from the native side, and the
// buffer then grows for the next call.
const HEAD = 4
var planBuf = new Float64Array(4096)

function planBuffer() {
  return planBuf
}

/** The plan's `len` numbers of the answer whose header is in `buf`. */
function takePlan(buf, len) {
  if (buf[1] === 0) return buf.subarray(HEAD, HEAD + len)
  if (buf === planBuf) planBuf = new Float64Array(Math.max((HEAD + len) * 2, planBuf.length))
  return native.takeTranscriptPlan()
}

// Field names the plan sends as their index (-1: the name is among the values).
const FIELDS = native.transcriptFieldNames().map(internal)

function name() {
  const c = f[at++]
  return c >= 0 ? FIELDS[c] : v[vi++]
}

// In the field's object, items `items` of array `list` get `key` set to `value` (moved last);
// nothing else of the field is read or copied deeply.
function setInItems(field, list, items, key, value) {
  const chosen = new Set(items)
  const next = field[list].map((item, i) => {
    if (!chosen.has(i)) return item
    const { [key]: _dropped, ...rest } = item
    return { ...rest, [key]: value }
  })
  return { ...field, [list]: next }
}

function applySets(messages, o, built) {
  const n = f[at++]
  for (let s = 0; s < n; s++) {
    const key = name()
    switch (f[at++]) {
      case 0:
        o[key] = v[vi++]
        break
      case 1:
        o[key] = messages[f[at++]][key]
        break
      case 2: {
        const prefix = v[vi++]
        o[key] = prefix + messages[f[at++]][key]
        break
      }
      case 3:
        o[key] = built
        break
      case 5:
        o[key] = text5()
        break
      case 6:
        delete o[key]
        o[key] = v[vi++]
        break
      case 7: {
        const inner = v[vi++]
        o[key] = { ...o[key], [inner]: v[vi++] }
        break
      }
      default: {
        const list = v[vi++]
        const items = v[vi++]
        const itemKey = v[vi++]
        o[key] = setInItems(o[key], list, items, itemKey, v[vi++])
      }
    }
  }
  const d = f[at++]
  for (let k = 0; k < d; k++) delete o[name()]
}

// A kind-5 text: `plan.texts` holds each after a separator, and its length is in the numbers.
// Sliced out by that length, the texts are never scanned for the separators (a split did, and
// built an array of them first).
function text5() {
  const len = f[at++]
  const s = t.slice(ti + 1, ti + 1 + len)
  ti += len + 1
  return tLone ? fromPrivate('', s) : s
}

function applyBlock(messages, own) {
  const e = f[at++]
  if (e >= 0) return own[e]
  if (e === -2) return v[vi++]
  if (e === -3) {
    const m = f[at++]
    return { type: 'text', text: v[vi++] + messages[m].content }
  }
  const src = messages[f[at++]].content[f[at++]]
  if (f[at] === 0 && f[at + 1] === 0 && v[vi] === null) {
    // A block moved from another message, unchanged: the very same object.
    at += 2
    vi++
    return src
  }
  const o = { ...src }
  applySets(messages, o, undefined)
  const prefix = v[vi++]
  if (prefix !== null) o.text = prefix + o.text
  return o
}

function applyMessage(messages, m) {
  if (m < 0) return applyNew(messages)
  const base = messages[m]
  const o = { ...base }
  // A copy of an input message: no set of its refers to the built content (kind 3 is written for
  // new messages only), so its sets apply as they are read, and the content follows (the sets
  // were read twice, skipped and then applied, for every copy: a fifth of apply's instructions).
  applySets(messages, o, undefined)
  const n = f[at++]
  if (n >= 0) o.content = blocks(messages, Array.isArray(base.content) ? base.content : [], n)
  return o
}

// A new message. Its sets come before the content in the plan, but may refer to it (kind 3):
// read the content first by skipping over the sets, then come back.
function applyNew(messages) {
  const o = {}
  const setsAt = at
  const setsVi = vi
  const setsTi = ti
  skipSets()
  const n = f[at++]
  const built = n >= 0 ? blocks(messages, [], n) : undefined
  const end = at
  const endVi = vi
  const endTi = ti
  at = setsAt
  vi = setsVi
  ti = setsTi
  applySets(messages, o, built)
  at = end
  vi = endVi
  ti = endTi
  return o
}

// A built content array of `n` blocks, packed: an array literal of its exact length for the
// usual few blocks (`new Array(n)` made a holey array, slower to make and to read for whoever
// reads the result), pushed for more. Array literal elements are evaluated in order.
function blocks(messages, own, n) {
  switch (n) {
    case 0:
      return []
    case 1:
      return [applyBlock(messages, own)]
    case 2:
      return [applyBlock(messages, own), applyBlock(messages, own)]
    case 3:
      return [applyBlock(messages, own), applyBlock(messages, own), applyBlock(messages, own)]
    case 4:
      return [applyBlock(messages, own), applyBlock(messages, own), applyBlock(messages, own), applyBlock(messages, own)]
    default: {
      const built = []
      for (let j = 0; j < n; j++) built.push(applyBlock(messages, own))
      return built
    }
  }
}

function skipSets() {
  const n = f[at++]
  for (let s = 0; s < n; s++) {
    name()
    const kind = f[at++]
    if (kind === 0 || kind === 6) vi++
    else if (kind === 5) ti += f[at++] + 1
    else if (kind === 7) vi += 2
    else if (kind === 1) at++
    else if (kind === 2) {
      vi++
      at++
    } else if (kind === 4) vi += 4
  }
  const d = f[at++]
  for (let k = 0; k < d; k++) name()
}

/**
 * The message array a plan describes; `messages` itself when the plan says nothing changed. With
 * `count`, only its first `count` messages (a plan replayed for a prefix of its output).
 */
function apply(messages, plan, count = plan.n) {
  if (plan.nums === undefined || plan.nums === null) return messages
  f = plan.nums
  at = 0
  v = plan.vals
  vi = 0
  // The answer from its texts on ('' when it has none), each after a separator.
  t = plan.texts
  ti = 0
  tLone = plan.lone === true
  const out = new Array(count)
  try {
    for (let i = 0; i < count; i++) {
      const e = f[at++]
      if (e >= 0) {
        out[i] = messages[e]
        continue
      }
      const m = f[at++]
      try {
        out[i] = applyMessage(messages, m)
      } catch (err) {
        const where = m < 0 ? `the new message at ${i}` : `messages[${m}]`
        const te = new TypeError(`${where}: could not be copied (${err && err.message ? err.message : String(err)})`)
        te.cause = err
        throw te
      }
    }
  } finally {
    f = null
    v = null
    t = ''
  }
  return out
}

/**
 * Sets the codec's working state aside and starts a fresh one, for a call made while another is
 * under way (a getter on the caller's messages that calls this package again); `leave` puts it
 * back. Without it the inner call would overwrite the outer call's skeleton, plan and buffers.
 */
function enter() {
  const saved = { nums, n, reals, r, parts, strLen, bytes, f, at, v, vi, t, ti, tLone, planBuf, pathMsg, pathBlock, extras, unread, marks }
  nums = new Uint32Array(256)
  reals = new Float64Array(64)
  r = 0
  marks = new Float64Array(256)
  bytes = new Uint8Array(256)
  n = 0
  parts = ['']
  strLen = 0
  planBuf = new Float64Array(256)
  return saved
}

function leave(s) {
  ;({ nums, n, reals, r, parts, strLen, bytes, f, at, v, vi, t, ti, tLone, planBuf, pathMsg, pathBlock, extras, unread, marks } = s)
}

/** Remembers the digests a plan reports (`[message, block, digest]`, input positions). */
function rememberDigests(messages, list) {
  for (const [i, j, digest] of list) {
    try {
      const m = messages[i]
      const b = m !== null && typeof m === 'object' && Array.isArray(m.content) ? m.content[j] : undefined
      if (b !== null && typeof b === 'object' && typeof b.data === 'string') DIGESTS.set(b, [b.data, digest])
    } catch {
      // A getter that throws now (it did not while encoding): nothing is remembered.
    }
  }
}

module.exports = { encode, apply, planBuffer, takePlan, rememberDigests, enter, leave, toPrivate, fromPrivate, SEP, VOCAB }
