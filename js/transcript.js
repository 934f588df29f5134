'use strict'
// Transcript functions: encode the skeleton, make the one native call, apply the plan.
// Option objects are passed through as JSON; no rule is decided here.

const native = require('../binding.js')
const codec = require('./codec.js')

/** Options as JSON: iterables (a Set of tool names) become arrays, functions are left out. */
function optionsJson(options) {
  if (options === undefined || options === null) return '{}'
  if (typeof options !== 'object') throw new TypeError(`options: expected an object, got ${typeof options}`)
  const o = {}
  for (const k of Object.keys(options)) {
    const v = options[k]
    if (typeof v === 'function' || k === 'messages' || k === 'sessionManager') continue
    o[k] = v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v[Symbol.iterator] === 'function' ? Array.from(v) : v
  }
  return JSON.stringify(o)
}

/**
 * Runs a transcript operation. Returns `{ messages, plan }`; `messages` is the input array itself
 * when nothing changed.
 */
function run(op, messages, options, name = 'messages') {
  const skeleton = codec.encode(messages, name)
  const plan = JSON.parse(native.runTranscript(messages, skeleton.nums, skeleton.strs, op, optionsJson(options)))
  return { messages: codec.apply(messages, plan), plan }
}

/** The plan's extra fields, with `added` (output positions) turned into the messages themselves. */
function extra(result) {
  const x = result.plan.extra || {}
  if (Array.isArray(x.added)) x.added = x.added.map((i) => result.messages[i])
  return x
}

function withReport(result, options, value) {
  return options && options.report === true ? { ...value, changes: result.plan.changes || [] } : value
}

function repairToolCallInputs(messages, options) {
  const r = run('repairToolCallInputs', messages, options)
  return withReport(r, options, { messages: r.messages, ...extra(r) })
}

function sanitizeToolCallInputs(messages, options) {
  return run('sanitizeToolCallInputs', messages, options).messages
}

function repairToolUseResultPairing(messages, options) {
  const r = run('repairToolUseResultPairing', messages, options)
  return withReport(r, options, { messages: r.messages, ...extra(r) })
}

function sanitizeToolUseResultPairing(messages, options) {
  return run('sanitizeToolUseResultPairing', messages, options).messages
}

module.exports = {
  run,
  extra,
  optionsJson,
  repairToolCallInputs,
  sanitizeToolCallInputs,
  repairToolUseResultPairing,
  sanitizeToolUseResultPairing,
}
