'use strict'
// The one way a transcript operation runs: encode the skeleton, make the native call, apply the
// plan. No rule is decided here.

const native = require('../binding.js')
const codec = require('./codec.js')
const { toJson } = require('./args.js')

// How many runs are under way on this thread: more than one when a getter on the caller's
// messages calls this package while its call runs; the inner run then uses its own codec state.
let depth = 0

/**
 * Runs a transcript operation with `options`, a plain object of checked values (js/options.js's
 * `pick`). Returns `{ messages, plan }`; `messages` is the input array itself when nothing changed.
 * With `session` (`{ native, start }`, js/transcript-session.js) the operation is the tracked
 * sanitizeSessionHistory of that session; `plan.session` then says where its cut lies, or that
 * it fell back (`messages` is then null).
 */
function run(op, messages, options = {}, name = 'messages', session = null) {
  const saved = depth > 0 ? codec.enter() : null
  depth++
  try {
    const skeleton = codec.encode(messages, name)
    const config = toJson(options, 'options')
    const answer =
      session === null
        ? native.runTranscript(messages, skeleton.nums, skeleton.strs, op, config, codec.planBuffer())
        : native.runTranscriptSession(session.native, messages, skeleton.nums, skeleton.strs, config, session.start, codec.planBuffer())
    if (answer.session != null && answer.session.fallback) return { messages: null, plan: { session: answer.session } }
    const plan = skeleton.lone ? JSON.parse(answer.json, codec.fromPrivate) : JSON.parse(answer.json)
    if (answer.session != null) plan.session = answer.session
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

module.exports = { run }
