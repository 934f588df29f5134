'use strict'
// Shared by the JS wrappers: how a bad argument is named in the TypeError that rejects it.

function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : typeof v
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The value when it is a string, else `null`. */
const optStr = (v) => (typeof v === 'string' ? v : null)

/** Throws `TypeError: <path>: expected <what>, got <what v is>`. */
function fail(path, what, v) {
  throw new TypeError(`${path}: expected ${what}, got ${describe(v)}`)
}

// At most this many values in one serialisation: a value whose children are shared is small in
// memory but exponential as JSON, and would otherwise be walked for days (Node 22+ no longer
// overflows its stack on deep values, so depth alone does not stop it).
const JSON_VALUES = 1_000_000

/**
 * `v` as JSON for a native call (`'null'` for undefined); a lone surrogate goes as U+FFFD (the
 * native JSON reader refuses `\udXXX` escapes that do not pair). Throws `TypeError: <path>: could
 * not be serialised …` for a cycle, a BigInt, a throwing getter, absurd nesting or more than
 * JSON_VALUES values.
 */
function toJson(v, path) {
  let n = 0
  const replacer = (k, x) => {
    if (++n > JSON_VALUES) throw new RangeError(`more than ${JSON_VALUES.toLocaleString('en')} values`)
    return typeof x === 'string' && !x.isWellFormed() ? x.toWellFormed() : x
  }
  try {
    const s = JSON.stringify(v, replacer)
    return s === undefined ? 'null' : s
  } catch (err) {
    throw new TypeError(`${path}: could not be serialised as JSON (${err && err.message ? err.message : String(err)})`)
  }
}

// A text a native call changed, for the caller of `text`: null or undefined (unchanged: `text`
// itself), a new string, or a plan of slices of `text` to join ([start, end, ...] in UTF-16
// units; -1 then a character code for one inserted character). V8 joins a few slices for next to
// nothing, where a long string rebuilt natively and copied again costs as much as the cleaning.
function joined(text, r) {
  if (r === null || r === undefined) return text
  if (typeof r === 'string') return r
  let out = ''
  for (let i = 0; i < r.length; i += 2) out += r[i] < 0 ? String.fromCharCode(r[i + 1]) : text.slice(r[i], r[i + 1])
  return out
}

module.exports = { describe, isObject, joined, optStr, fail, toJson }
