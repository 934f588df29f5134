'use strict'
// Response cleaning: the reply text crosses once, the cleaned parts come back as JSON and the
// calls' text as one string.

const native = require('../binding.js')
const { joined } = require('./args.js')
const { OPTIONS, optionsJson } = require('./options.js')

// The calls' ids, names and arguments come as one string, the JSON holding the lengths of their
// three pieces, three numbers a call in one flat array: JSON.parse of their escaped JSON arguments
// cost six times this.
function unpack(text, lengths) {
  const calls = new Array(lengths.length / 3)
  let at = 0
  for (let k = 0, l = 0; l < lengths.length; k++, l += 3) {
    const id = text.slice(at, (at += lengths[l]))
    const name = text.slice(at, (at += lengths[l + 1]))
    calls[k] = { id, type: 'function', function: { name, arguments: text.slice(at, (at += lengths[l + 2])) } }
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
    r.content = joined(content, Array.isArray(r.content) ? r.content : parts.content)
    if (typeof parts.calls === 'string') r.toolCalls = unpack(parts.calls, r.toolCalls)
    return r
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

module.exports = { cleanResponse }
