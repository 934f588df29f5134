'use strict'
// The thin JS half of the transcript boundary (see ARCHITECTURE.md, "The boundary is the cost").
//
// encode() reads, in one pass, only the fields the Rust rules decide on and writes them into one
// string; the native call returns a plan; apply() builds the result from it with spreads, so every
// message and block no rule touched comes back as the very same object. No rule logic lives here:
// the layout below is mirrored field for field by src/transcript/skeleton.rs.

const SEP = '\x1f'
const HEAD_IMAGE = 1024
const HEAD_TEXT = 4096
const SHORT_TEXT = 64

// The skeleton travels in two channels. `nums` (a Float64Array) carries structure, kinds, counts,
// lengths and numbers; `strs` carries the strings that are not in VOCAB, each preceded by SEP.
// Writing codes into a typed array instead of building a string field by field keeps the codec
// almost free of allocation, which is what makes it cheap. src/transcript/skeleton.rs mirrors it.
//
// Value codes: 0 undefined, 1 null, 2 true, 3 false, 4 object, 5 array, 6 other (function,
// symbol, bigint), 7 number (the next slot holds it), 8 string (the next string of `strs`),
// 9 string holding SEP (the next string is its JSON), 10 string whose payload is not sent,
// 15 number whose value is not sent, 16 + i the string VOCAB[i].
const VOCAB = [
  'user', 'assistant', 'toolResult', 'text', 'thinking', 'toolCall', 'toolUse', 'functionCall',
  'image', 'redacted_thinking', 'stop', 'length', 'error', 'aborted', 'inter_session',
  'external_user', 'internal_system', 'image/png', 'image/jpeg', 'image/gif', 'image/webp',
  'input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens', 'cost.input', 'cost.output',
  'cost.cacheRead', 'cacheWrite', 'cost.cacheWrite', 'cost.total', 'compactionSummary', 'custom',
  'branchSummary', 'reasoning', 'exec', 'read', 'write', 'edit', 'bash',
]
const CODE = new Map()
VOCAB.forEach((w, i) => {
  if (!CODE.has(w)) CODE.set(w, 16 + i)
})

// Structure codes. Those that can stand where a value could (content, text, data) are kept
// apart from the value codes: 11 and up.
const MESSAGE = 1
const BLOCK = 2
const NOT_OBJECT = 3
const TEXT = 11 // then blank (0/1), length
const TEXT_HEAD = 12 // then blank, length, and a string value with the head
const ARRAY = 13 // then the count
const DATA = 14 // then the length, and a string value with the head

let nums = new Float64Array(4096)
let n = 0
let strs = ''

function room(k) {
  if (n + k > nums.length) {
    const bigger = new Float64Array(Math.max(nums.length * 2, n + k))
    bigger.set(nums)
    nums = bigger
  }
}

function str(v) {
  if (v.indexOf(SEP) === -1) {
    nums[n++] = 8
    strs += SEP + v
  } else {
    nums[n++] = 9
    strs += SEP + JSON.stringify(v)
  }
}

function val(v) {
  switch (typeof v) {
    case 'string': {
      const c = CODE.get(v)
      if (c !== undefined) nums[n++] = c
      else str(v)
      return
    }
    case 'undefined':
      nums[n++] = 0
      return
    case 'number':
      nums[n++] = 7
      nums[n++] = v
      return
    case 'boolean':
      nums[n++] = v ? 2 : 3
      return
    case 'object':
      nums[n++] = v === null ? 1 : Array.isArray(v) ? 5 : 4
      return
    default:
      nums[n++] = 6
  }
}

// The kind of a value only: strings and numbers carry no payload.
function kind(v) {
  if (typeof v === 'string') nums[n++] = 10
  else if (typeof v === 'number') nums[n++] = 15
  else val(v)
}

// A text-like string: its blank flag and length, and its head when asked for or short.
function text(v, wantHead) {
  if (typeof v !== 'string') {
    kind(v)
    return
  }
  const head = wantHead || v.length <= SHORT_TEXT
  nums[n++] = head ? TEXT_HEAD : TEXT
  nums[n++] = v.trim() === '' ? 1 : 0
  nums[n++] = v.length
  if (head) str(v.length > HEAD_TEXT ? v.slice(0, HEAD_TEXT) : v)
}

function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
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
  val(type)
  switch (type) {
    case 'text':
      text(b.text, wantHead)
      signatures(b)
      break
    case 'thinking': {
      text(b.thinking, false)
      const sig = b.thinkingSignature
      if (isPlainObject(sig)) {
        nums[n++] = 4
        val(sig.id)
        val(sig.type)
      } else {
        val(sig)
      }
      signatures(b)
      break
    }
    case 'toolCall':
    case 'toolUse':
    case 'functionCall':
      val(b.id)
      val(b.name)
      kind(b.input)
      kind(b.arguments)
      signatures(b)
      break
    case 'image': {
      const d = b.data
      if (typeof d === 'string') {
        nums[n++] = DATA
        nums[n++] = d.length
        str(d.length > HEAD_IMAGE ? d.slice(0, HEAD_IMAGE) : d)
      } else {
        kind(d)
      }
      val(b.mimeType)
      signatures(b)
      break
    }
    case 'toolResult':
      val(b.toolUseId)
      signatures(b)
      break
    default:
      signatures(b)
  }
}

// Gemini's thought signatures, which may sit on any block: a mask, then the present ones.
function signatures(b) {
  const snake = b.thought_signature
  const camel = b.thoughtSignature
  if (snake === undefined && camel === undefined) {
    nums[n++] = 0
    return
  }
  nums[n++] = (snake !== undefined ? 1 : 0) | (camel !== undefined ? 2 : 0)
  if (snake !== undefined) val(snake)
  if (camel !== undefined) val(camel)
}

// A small object (usage) one level deep: 4, the count, then key/value pairs; a nested object
// value is 4, its count and its pairs again (deeper objects are sent by kind only).
function object(u, deep) {
  nums[n++] = 4
  const at = n++
  let count = 0
  for (const k in u) {
    const v = u[k]
    room(8)
    val(k)
    if (deep && isPlainObject(v)) object(v, false)
    else val(v)
    count++
  }
  nums[at] = count
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
  val(m.role)
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
    (u !== undefined ? 256 : 0)
  nums[n++] = mask
  if (mask & 1) val(stopReason)
  if (mask & 2) val(timestamp)
  if (mask & 4) val(toolCallId)
  if (mask & 8) val(toolUseId)
  if (mask & 16) val(toolName)
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
    if (isPlainObject(u)) object(u, true)
    else kind(u)
  }
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
    text(c, wantHead)
  }
}

// Where encode() was when a getter threw, for the error message.
let pathMsg = -1
let pathBlock = -1

function at(name, i, j) {
  return j >= 0 ? `${name}[${i}].content[${j}]` : `${name}[${i}]`
}

function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : typeof v
}

/**
 * The skeleton of a message array: `{ nums, strs }`. Throws a TypeError naming the path when a
 * message cannot be read (a getter that throws, a revoked proxy).
 */
function encode(messages, name = 'messages') {
  if (!Array.isArray(messages)) {
    throw new TypeError(`${name}: expected an array of messages, got ${describe(messages)}`)
  }
  n = 0
  strs = ''
  room(2)
  nums[n++] = messages.length
  pathMsg = -1
  pathBlock = -1
  try {
    for (let i = 0; i < messages.length; i++) {
      pathMsg = i
      message(messages[i])
    }
  } catch (err) {
    strs = ''
    const e = new TypeError(`${at(name, pathMsg, pathBlock)}: could not be read (${err && err.message ? err.message : String(err)})`)
    e.cause = err
    throw e
  }
  const result = { nums: nums.subarray(0, n), strs }
  strs = ''
  return result
}

// ---- plan application ----

// A field value from the plan: [name, 0, literal] | [name, 1, k] (input message k's field)
// | [name, 2, prefix, k] (prefix + input message k's field) | [name, 3] (the built content)
// | [name, 4, list, items, key, value] (see setInItems).
function fieldValue(messages, s, built, o) {
  switch (s[1]) {
    case 0:
      return s[2]
    case 1:
      return messages[s[2]][s[0]]
    case 2:
      return s[2] + messages[s[3]][s[0]]
    case 4:
      return setInItems(o[s[0]], s)
    default:
      return built
  }
}

// [name, 4, list, items, key, value]: in the field's object, items `items` of array `list` get
// `key` set to `value` (moved last); nothing else of the field is read or copied deeply.
function setInItems(field, s) {
  const list = field[s[2]]
  const at = new Set(s[3])
  const key = s[4]
  const next = list.map((item, i) => {
    if (!at.has(i)) return item
    const { [key]: _dropped, ...rest } = item
    return { ...rest, [key]: s[5] }
  })
  return { ...field, [s[2]]: next }
}

function applyBlock(messages, own, spec) {
  if (typeof spec === 'number') return own[spec]
  if (spec.v !== undefined) return spec.v
  if (spec.t !== undefined) return { type: 'text', text: spec.t[1] + messages[spec.t[0]].content }
  const src = messages[spec.b[0]].content[spec.b[1]]
  if (spec.s === undefined && spec.d === undefined && spec.p === undefined) return src
  const o = { ...src }
  if (spec.s !== undefined) for (const s of spec.s) o[s[0]] = s[1] === 4 ? setInItems(o[s[0]], s) : s[2]
  if (spec.d !== undefined) for (const d of spec.d) delete o[d]
  if (spec.p !== undefined) o.text = spec.p + o.text
  return o
}

function applyMessage(messages, e) {
  const base = e.m === null ? null : messages[e.m]
  let built
  if (e.c !== undefined) {
    const own = base !== null && Array.isArray(base.content) ? base.content : []
    built = new Array(e.c.length)
    for (let j = 0; j < e.c.length; j++) built[j] = applyBlock(messages, own, e.c[j])
  }
  const o = base === null ? {} : { ...base }
  if (e.s !== undefined) for (const s of e.s) o[s[0]] = fieldValue(messages, s, built, o)
  if (e.d !== undefined) for (const d of e.d) delete o[d]
  if (built !== undefined && base !== null) o.content = built
  return o
}

/** The message array a plan describes; `messages` itself when the plan says nothing changed. */
function apply(messages, plan) {
  const entries = plan.msgs
  if (entries === undefined) return messages
  const out = new Array(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]
    if (typeof e === 'number') {
      out[i] = messages[e]
      continue
    }
    try {
      out[i] = applyMessage(messages, e)
    } catch (err) {
      const where = e.m === null ? `the new message at ${i}` : `messages[${e.m}]`
      const te = new TypeError(`${where}: could not be copied (${err && err.message ? err.message : String(err)})`)
      te.cause = err
      throw te
    }
  }
  return out
}

module.exports = { encode, apply, VOCAB }
