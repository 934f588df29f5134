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

// One value: '' undefined, N null, T/F booleans, n<number>, "<string>, j<JSON string> (a string
// holding the separator), o object, a array, x anything else.
function val(v) {
  switch (typeof v) {
    case 'undefined':
      return ''
    case 'string':
      return v.indexOf(SEP) === -1 ? '"' + v : 'j' + JSON.stringify(v)
    case 'number':
      return 'n' + v
    case 'boolean':
      return v ? 'T' : 'F'
    case 'object':
      return v === null ? 'N' : Array.isArray(v) ? 'a' : 'o'
    default:
      return 'x'
  }
}

// The kind of a value only: like val() but strings carry no payload.
function kind(v) {
  return typeof v === 'string' ? '"' : val(v)
}

// A text-like string: t<blank><length>, or h<blank><length> followed by a field with its head.
function text(out, v, wantHead) {
  if (typeof v !== 'string') {
    out.push(kind(v))
    return
  }
  const blank = v.trim() === '' ? '1' : '0'
  if (wantHead || v.length <= SHORT_TEXT) {
    out.push('h' + blank + v.length)
    out.push(val(v.length > HEAD_TEXT ? v.slice(0, HEAD_TEXT) : v))
  } else {
    out.push('t' + blank + v.length)
  }
}

function block(out, b, wantHead) {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) {
    out.push(b === null || typeof b !== 'object' ? 'X' + val(b) : 'Xa')
    return
  }
  const type = b.type
  out.push('B', val(type))
  switch (type) {
    case 'text':
      text(out, b.text, wantHead)
      out.push(val(b.thought_signature), val(b.thoughtSignature))
      break
    case 'thinking': {
      text(out, b.thinking, false)
      const sig = b.thinkingSignature
      if (typeof sig === 'object' && sig !== null && !Array.isArray(sig)) out.push('o', val(sig.id), val(sig.type))
      else out.push(val(sig))
      out.push(val(b.thought_signature), val(b.thoughtSignature))
      break
    }
    case 'toolCall':
    case 'toolUse':
    case 'functionCall':
      out.push(val(b.id), val(b.name), kind(b.input), kind(b.arguments), val(b.thought_signature), val(b.thoughtSignature))
      break
    case 'image': {
      const d = b.data
      if (typeof d === 'string') out.push('d' + d.length, val(d.length > HEAD_IMAGE ? d.slice(0, HEAD_IMAGE) : d))
      else out.push(kind(d))
      out.push(val(b.mimeType))
      break
    }
    case 'toolResult':
      out.push(val(b.toolUseId))
      break
    default:
      out.push(val(b.thought_signature), val(b.thoughtSignature))
  }
}

function message(out, m) {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    out.push(m === null || typeof m !== 'object' ? 'X' + val(m) : 'Xa')
    return
  }
  out.push('M', val(m.role), val(m.stopReason), val(m.timestamp), val(m.toolCallId), val(m.toolUseId), val(m.toolName), val(m.errorMessage), 'details' in m ? 'T' : '')
  const p = m.provenance
  let wantHead = false
  if (typeof p === 'object' && p !== null && !Array.isArray(p)) {
    wantHead = true
    out.push('o', val(p.kind), val(p.sourceSessionKey), val(p.sourceChannel), val(p.sourceTool))
  } else {
    out.push(kind(p))
  }
  const u = m.usage
  if (typeof u === 'object' && u !== null && !Array.isArray(u)) {
    out.push('o')
    const at = out.length
    out.push('')
    let n = 0
    for (const k in u) {
      const v = u[k]
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
        for (const k2 in v) {
          out.push(val(k + '.' + k2), val(v[k2]))
          n++
        }
      } else {
        out.push(val(k), val(v))
        n++
      }
    }
    out[at] = 'n' + n
  } else {
    out.push(kind(u))
  }
  const c = m.content
  if (Array.isArray(c)) {
    out.push('A' + c.length)
    for (let j = 0; j < c.length; j++) {
      pathBlock = j
      block(out, c[j], wantHead)
    }
    pathBlock = -1
  } else {
    text(out, c, wantHead)
  }
}

// Where encode() was when a getter threw, for the error message.
let pathMsg = -1
let pathBlock = -1

function at(name, i, j) {
  return j >= 0 ? `${name}[${i}].content[${j}]` : `${name}[${i}]`
}

/** The skeleton of a message array, one string. Throws a TypeError naming the path on bad input. */
function encode(messages, name = 'messages') {
  if (!Array.isArray(messages)) {
    throw new TypeError(`${name}: expected an array of messages, got ${describe(messages)}`)
  }
  const out = ['n' + messages.length]
  pathMsg = -1
  pathBlock = -1
  try {
    for (let i = 0; i < messages.length; i++) {
      pathMsg = i
      message(out, messages[i])
    }
  } catch (err) {
    const e = new TypeError(`${at(name, pathMsg, pathBlock)}: could not be read (${err && err.message ? err.message : String(err)})`)
    e.cause = err
    throw e
  }
  return out.join(SEP)
}

function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : typeof v
}

// ---- plan application ----

// A field value from the plan: [name, 0, literal] | [name, 1, k] (input message k's field)
// | [name, 2, prefix, k] (prefix + input message k's field) | [name, 3] (the built content).
function fieldValue(messages, s, built) {
  switch (s[1]) {
    case 0:
      return s[2]
    case 1:
      return messages[s[2]][s[0]]
    case 2:
      return s[2] + messages[s[3]][s[0]]
    default:
      return built
  }
}

function applyBlock(messages, own, spec) {
  if (typeof spec === 'number') return own[spec]
  if (spec.v !== undefined) return spec.v
  if (spec.t !== undefined) return { type: 'text', text: spec.t[1] + messages[spec.t[0]].content }
  const src = messages[spec.b[0]].content[spec.b[1]]
  if (spec.s === undefined && spec.d === undefined && spec.p === undefined) return src
  const o = { ...src }
  if (spec.s !== undefined) for (const s of spec.s) o[s[0]] = s[2]
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
  if (e.s !== undefined) for (const s of e.s) o[s[0]] = fieldValue(messages, s, built)
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
    out[i] = typeof e === 'number' ? messages[e] : applyMessage(messages, e)
  }
  return out
}

module.exports = { encode, apply, val }
