'use strict'
// The one way a transcript operation runs: encode the skeleton, make the native call, apply the
// plan. No rule is decided here.

const native = require('../binding.js')
const codec = require('./codec.js')
const { toJson } = require('./args.js')

/**
 * Runs a transcript operation with `options`, a plain object of checked values (js/options.js's
 * `pick`). Returns `{ messages, plan }`; `messages` is the input array itself when nothing changed.
 */
function run(op, messages, options = {}, name = 'messages') {
  const skeleton = codec.encode(messages, name)
  const answer = native.runTranscript(messages, skeleton.nums, skeleton.strs, op, toJson(options, 'options'), codec.planBuffer())
  const plan = JSON.parse(answer.json)
  if (plan.digests !== undefined) codec.rememberDigests(messages, plan.digests)
  if (answer.planLen > 0) {
    plan.nums = codec.takePlan(answer.plan, answer.planLen)
    plan.texts = answer.texts.split(codec.SEP)
  }
  return { messages: codec.apply(messages, plan), plan }
}

module.exports = { run }
