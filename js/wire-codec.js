'use strict'
// The skeleton of a request body for sanitizeRequest: the few fields the wire readers look at,
// written in one pass into a Float64Array and one string, so the body never crosses as JSON text
// (see ARCHITECTURE.md, "The boundary is the cost"). Generic: which keys are sent and how comes
// from src/transcript/wire/skeleton.rs (the one definition, which also documents the encoding);
// nothing here knows a protocol or a rule.

const native = require('../binding.js')
const { toPrivate } = require('./codec.js')

const SK = JSON.parse(native.wireSkeletonCodes())
const C = SK.codes
const SEP = SK.sep
// Key → its index in SK.keys; a plain object (V8 looks its constant keys up faster than a Map's).
const KEY = Object.create(null)
const FLAGS = new Uint8Array(SK.keys.length)
SK.keys.forEach(([k, f], i) => {
  KEY[k] = i
  FLAGS[i] = f
})
const TEXT = SK.text
const SHALLOW = SK.shallow
const HEAD = SK.head
const HEAD_CHARS = SK.headChars
const DEPTH = SK.depth
// At most this many containers are walked: a value whose children are shared is small in memory
// but exponential as a tree.
const CONTAINERS = 1_000_000

let nums = new Float64Array(8192)
let n = 0
let strs = ''
let containers = 0

function room(k) {
  if (n + k > nums.length) {
    const bigger = new Float64Array(Math.max(nums.length * 2, n + k))
    bigger.set(nums)
    nums = bigger
  }
}

function str(v) {
  if (v.indexOf(SEP) === -1) {
    nums[n++] = C.str
    strs += SEP + v
  } else {
    nums[n++] = C.strJson
    strs += SEP + JSON.stringify(v.isWellFormed() ? v : toPrivate(v))
  }
}

// `v.trim() === ''`, without calling trim when the first character settles it.
function blank(v) {
  if (v.length === 0) return true
  const c = v.charCodeAt(0)
  if (c > 32 && c < 160) return false
  return v.trim() === ''
}

// Values JSON leaves out of an object (and writes as null in an array).
const absent = (v) => v === undefined || typeof v === 'function' || typeof v === 'symbol'

function value(v, flags, depth) {
  room(4)
  switch (typeof v) {
    case 'string':
      if (flags & HEAD) {
        // An image's payload or data: URL: its head; the rest is read by Rust if it must be.
        nums[n++] = C.textHead
        nums[n++] = v.length
        nums[n++] = blank(v) ? 1 : 0
        str(v.length > HEAD_CHARS ? v.slice(0, HEAD_CHARS) : v)
      } else if (flags & TEXT) {
        nums[n++] = C.text
        nums[n++] = v.length
        nums[n++] = blank(v) ? 1 : 0
      } else {
        str(v)
      }
      return
    case 'number':
    case 'bigint':
      nums[n++] = C.num
      return
    case 'boolean':
      nums[n++] = v ? C.true : C.false
      return
    case 'object':
      if (v === null) break
      if (++containers > CONTAINERS) throw new RangeError(`more than ${CONTAINERS.toLocaleString('en')} objects and arrays`)
      if (Array.isArray(v)) {
        nums[n++] = flags & SHALLOW || depth >= DEPTH ? C.shallowArr : C.arr
        nums[n++] = v.length
        if (flags & SHALLOW || depth >= DEPTH) return
        for (let i = 0; i < v.length; i++) {
          try {
            value(v[i], 0, depth + 1)
          } catch (err) {
            throw within(err, `[${i}]`)
          }
        }
        return
      }
      if (flags & SHALLOW || depth >= DEPTH) {
        nums[n++] = C.shallowObj
        return
      }
      object(v, depth)
      return
  }
  nums[n++] = C.null
}

// An object: its listed members, and its first member's key when that is not listed.
function object(o, depth) {
  nums[n++] = C.obj
  const at = n++
  let count = 0
  let first = true
  for (const k in o) {
    const c = KEY[k]
    if (c === undefined && !first) continue
    let x
    try {
      x = o[k]
      if (absent(x)) continue
      if (c !== undefined) {
        room(1)
        nums[n++] = c
        value(x, FLAGS[c], depth + 1)
        count++
      }
    } catch (err) {
      throw within(err, /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)
    }
    if (c === undefined && first) {
      room(3)
      nums[n++] = -1
      str(k)
      nums[n++] = C.skipped
      count++
    }
    first = false
  }
  nums[at] = count
}

/** An error met reading the body, with the path where it happened (`.messages[3].content`). */
class ReadError extends Error {
  constructor(cause) {
    super(cause && cause.message ? cause.message : String(cause))
    this.at = ''
  }
}

function within(err, seg) {
  const e = err instanceof ReadError ? err : new ReadError(err)
  e.at = seg + e.at
  return e
}

/**
 * The skeleton of `body`: `[nums, strs, lone]` (nums a view of a buffer reused by the next call;
 * `lone` when a string held a lone surrogate, crossing as js/codec.js's private-use mapping, so
 * values Rust sends back need `fromPrivate`). Throws `TypeError: body.<path>: could not be read (…)` for a getter that throws or a value too
 * large to walk.
 */
function encode(body) {
  n = 0
  strs = ''
  containers = 0
  try {
    value(body, 0, 0)
  } catch (err) {
    const e = err instanceof ReadError ? err : new ReadError(err)
    throw new TypeError(`body${e.at}: could not be read (${e.message})`)
  } finally {
    containers = 0
  }
  const lone = !strs.isWellFormed()
  const out = [nums.subarray(0, n), lone ? toPrivate(strs) : strs, lone]
  strs = ''
  return out
}

module.exports = { encode }
