'use strict'
// The one way a transcript operation runs: encode the skeleton, make the native call, apply the
// plan. No rule is decided here.

const native = require('../binding.js')
const codec = require('./codec.js')
const readSet = require('./read-set.js')
const { toJson } = require('./args.js')

const V2026_9_6 = '2026.9.6'

// How many runs are under way on this thread: more than one when a getter on the caller's
// messages calls this package while its call runs; the inner run then uses its own codec state.
let depth = 0

/**
 * Runs a transcript operation with `options`, a plain object of checked values (js/options.js's
 * `pick`). Returns `{ messages, plan, skeleton }`; `messages` is the input array itself when nothing changed.
 * With `session` (`{ native, version, unread, start, entries, now, marks }`, js/transcript-session.js;
 * `entries` the session entries' JSON or null) the operation is
 * the tracked sanitizeSessionHistory of that session, whose options the session holds (`options`
 * is not read); `plan.session` then says where its cut lies, or that it fell back (`messages` is
 * then null; `plan.session.earlier`, `{ cut, out }`, when the session can continue from that
 * earlier cut instead of the full pass), and with `marks` true `skeleton.marks` says where each message's skeleton begins
 * (valid until the next run).
 */
function run(op, messages, options = {}, name = 'messages', session = null) {
  return guarded(() => {
    // 2026.9.6's rules read a few more message fields; the 2026.3.23 path never reads them.
    const version = (session !== null ? session.version : options === null ? undefined : options.openclawVersion) ?? native.getOpenClawVersionNative()
    // The fields no rule of this call reads are left out (src/transcript/read_set.rs).
    const unread = session !== null ? session.unread : readSet.unread(op, options ?? {}, version)
    const skeleton = codec.encode(messages, name, version === V2026_9_6, session !== null && session.marks === true, unread)
    const buf = codec.planBuffer()
    const answer =
      session === null
        ? native.runTranscript(messages, skeleton.codes, skeleton.reals, skeleton.strs, op, toJson(options, 'options'), buf)
        : native.runTranscriptSession(session.native, messages, skeleton.codes, skeleton.reals, skeleton.strs, session.entries, session.now, session.start, buf)
    // The answer: the plan's JSON, then its texts (each after a SEP, which JSON never holds raw);
    // the header in `buf` says the rest (src/napi/transcript.rs, HEAD).
    if (session !== null && buf[2] < 0) {
      // -2: not from this cut, but from the session's earlier cut `buf[0]` (output `buf[1]`).
      const fallback = buf[2] === -2 ? { fallback: true, earlier: { cut: buf[0], out: buf[1] } } : { fallback: true }
      return { messages: null, plan: { session: fallback }, skeleton }
    }
    const k = answer.indexOf(codec.SEP)
    const json = k < 0 ? answer : answer.slice(0, k)
    const plan = skeleton.lone ? JSON.parse(json, codec.fromPrivate) : JSON.parse(json)
    if (session !== null) plan.session = { cut: buf[2], out: buf[3] }
    if (buf[0] >= 0) {
      // A plan (even one of zero numbers: every message dropped) replaces the input. Its numbers
      // are taken before any getter of the caller's can run (rememberDigests reads blocks).
      plan.nums = codec.takePlan(buf, buf[0])
      // The texts, each after a SEP; the plan's numbers hold their lengths (codec.apply slices them).
      plan.texts = k < 0 ? '' : answer.slice(k)
      plan.lone = skeleton.lone
    }
    if (plan.digests !== undefined) codec.rememberDigests(messages, plan.digests)
    return { messages: codec.apply(messages, plan), plan, skeleton }
  })
}

/**
 * `f(skeleton)` for the skeleton of `messages` as `run` would send it in OpenClaw release
 * `version` (undefined: the process default), leaving out the fields `unread` names; the skeleton
 * is valid only during `f`, which must not call back into this package.
 */
function withSkeleton(messages, version, unread, f) {
  return guarded(() => f(codec.encode(messages, 'messages', (version ?? native.getOpenClawVersionNative()) === V2026_9_6, false, unread)))
}

/** `codec.apply(messages, plan, count)` for a plan `keepPlan` kept. */
function replay(messages, plan, count) {
  return guarded(() => codec.apply(messages, plan, count))
}

/** `f()` with the codec's state its own (a getter may call this package while `f` runs). */
function guarded(f) {
  const saved = depth > 0 ? codec.enter() : null
  depth++
  try {
    return f()
  } finally {
    depth--
    if (saved !== null) codec.leave(saved)
  }
}

/** A plan `run` returned, kept to be replayed (`codec.apply`) on other message objects later. */
function keepPlan(plan) {
  if (plan.nums === undefined || plan.nums === null) return { n: plan.n }
  return { n: plan.n, nums: plan.nums.slice(), vals: plan.vals, texts: plan.texts, lone: plan.lone }
}

module.exports = { run, withSkeleton, keepPlan, replay }
