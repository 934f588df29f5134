'use strict'
// The one way a transcript operation runs: encode the skeleton, make the native call, apply the
// plan. Options pass through as JSON; no rule is decided here.

const native = require('../binding.js')
const codec = require('./codec.js')
const { toJson } = require('./args.js')

// Keys of a params object that are not options: the messages, live handles, OpenClaw's config.
const NOT_OPTIONS = new Set(['messages', 'sessionManager', 'config', 'warn', 'sessionId'])

/**
 * Options as JSON: iterables (a Set of tool names) become arrays; functions, live handles and
 * values JSON cannot hold (cycles, BigInt) are left out rather than failing the call.
 */
function optionsJson(options, extra) {
  const o = {}
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw new TypeError(`options: expected an object, got ${typeof options}`)
    for (const k of Object.keys(options)) {
      const v = options[k]
      if (typeof v === 'function' || NOT_OPTIONS.has(k)) continue
      o[k] = v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v[Symbol.iterator] === 'function' ? Array.from(v) : v
    }
  }
  if (extra !== undefined) Object.assign(o, extra)
  try {
    return toJson(o, 'options')
  } catch {
    for (const k of Object.keys(o)) {
      try {
        toJson(o[k], k)
      } catch {
        delete o[k]
      }
    }
    return toJson(o, 'options')
  }
}

// How many runs are under way on this thread: more than one when a getter on the caller's
// messages calls this package while its call runs; the inner run then uses its own codec state.
let depth = 0

/**
 * Runs a transcript operation. Returns `{ messages, plan }`; `messages` is the input array itself
 * when nothing changed.
 */
function run(op, messages, options, extra, name = 'messages') {
  const saved = depth > 0 ? codec.enter() : null
  depth++
  try {
    const skeleton = codec.encode(messages, name)
    const answer = native.runTranscript(messages, skeleton.nums, skeleton.strs, op, optionsJson(options, extra), codec.planBuffer())
    const plan = skeleton.lone ? JSON.parse(answer.json, codec.fromPrivate) : JSON.parse(answer.json)
    if (plan.digests !== undefined) codec.rememberDigests(messages, plan.digests)
    if (plan.n !== undefined) {
      // A plan (even one of zero numbers: every message dropped) replaces the input.
      plan.nums = codec.takePlan(answer.plan, answer.planLen)
      plan.texts = answer.texts.split(codec.SEP)
      if (skeleton.lone) plan.texts = plan.texts.map((x) => codec.fromPrivate('', x))
    }
    return { messages: codec.apply(messages, plan), plan }
  } finally {
    depth--
    if (saved !== null) codec.leave(saved)
  }
}

module.exports = { run, optionsJson }
