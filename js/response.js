'use strict'
// Response cleaning: the reply text crosses once, the cleaned parts come back as JSON, the
// calls' text as one string and the numbers as another.

const native = require('../binding.js')
const { joined } = require('./args.js')
const { OPTIONS, optionsJson } = require('./options.js')

// Numbers (the content's plan, then three lengths a call) come as one string, two UTF-16 units
// each, its high then low half: read back for a few nanoseconds each, where JSON.parse of the
// ~360 numbers of a reply dense with calls cost ~7 µs.
const num = (s, k) => (s.charCodeAt(2 * k) << 16) | s.charCodeAt(2 * k + 1)

// The calls' ids, names and arguments come as one string, cut by the lengths of their three
// pieces (`nums` from number `from` on): JSON.parse of their escaped JSON arguments cost six
// times this.
function unpack(text, nums, from, count) {
  const calls = new Array(count)
  let at = 0
  for (let k = 0, l = from; k < count; k++, l += 3) {
    const id = text.slice(at, (at += num(nums, l)))
    const name = text.slice(at, (at += num(nums, l + 1)))
    calls[k] = { id, type: 'function', function: { name, arguments: text.slice(at, (at += num(nums, l + 2))) } }
  }
  return calls
}

// Options JSON this long (tools offered) is read natively once and then named by the number it was
// kept under, so the text does not cross again with every reply (~2 µs for twenty tools).
const KEEP_FROM = 512
const keptIds = new Map()

/** `native.cleanResponseJson` with `json`, or with the number it is kept under when it is long. */
function cleanNative(content, json) {
  if (json.length < KEEP_FROM) return native.cleanResponseJson(content, json)
  const id = keptIds.get(json)
  const parts = id === undefined ? null : native.cleanResponseJson(content, id)
  if (parts !== null) return parts
  // New options, or ones this thread no longer holds: kept (again), then used.
  if (keptIds.size >= 8) keptIds.clear()
  const fresh = native.keepResponseOptions(json)
  keptIds.set(json, fresh)
  return native.cleanResponseJson(content, fresh)
}

function cleanResponse(content, options) {
  if (typeof content !== 'string') {
    throw new TypeError(`content: expected a string, got ${content === null ? 'null' : Array.isArray(content) ? 'an array' : typeof content}`)
  }
  const json = optionsJson(options, OPTIONS.cleanResponse, 'options')
  try {
    // The content comes back on its own: null when unchanged (the caller's string), a string, or
    // slices of the caller's string to join.
    const parts = cleanNative(content, json)
    const r = JSON.parse(parts.json)
    if (typeof parts.calls !== 'string') {
      r.content = joined(content, parts.content)
      return r
    }
    // `content` in the JSON counts the plan's numbers when the content is slices to join.
    let from = 0
    if (typeof r.content === 'number') {
      const plan = new Array(r.content)
      for (; from < plan.length; from++) plan[from] = num(parts.numbers, from)
      r.content = joined(content, plan)
    } else {
      r.content = joined(content, parts.content)
    }
    r.toolCalls = unpack(parts.calls, parts.numbers, from, r.toolCalls)
    return r
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

module.exports = { cleanResponse }
