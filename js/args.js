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

module.exports = { describe, isObject, optStr, fail }
