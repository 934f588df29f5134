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

// JSON.stringify writes a lone surrogate as a `\udXXX` escape, which the native JSON reader
// refuses; such strings go as U+FFFD instead.
const wellFormed = (k, v) => (typeof v === 'string' && !v.isWellFormed() ? v.toWellFormed() : v)

/**
 * `v` as JSON for a native call (`'null'` for undefined). Throws `TypeError: <path>: could not be
 * serialised …` for a cycle, a BigInt, a throwing getter or absurd nesting.
 */
function toJson(v, path) {
  try {
    let s = JSON.stringify(v)
    if (s !== undefined && s.includes('\\ud')) s = JSON.stringify(v, wellFormed)
    return s === undefined ? 'null' : s
  } catch (err) {
    throw new TypeError(`${path}: could not be serialised as JSON (${err && err.message ? err.message : String(err)})`)
  }
}

module.exports = { describe, isObject, optStr, fail, toJson }
