'use strict'
// The incremental sanitizeSessionHistory (src/transcript/incremental.rs decides; this file only
// remembers). A session keeps the input messages it was last given, the output it returned and
// where Rust proved a cut: input messages before `cut` give output messages before `outCut`
// whatever follows them. When the next call's messages start with the very same objects (`===`,
// checked one by one: exact, and ~10 µs at 10,000 messages), only `messages.slice(cut)` crosses;
// Rust either proves the result equal to the full pass or answers "fall back", and the full pass
// runs. Sessions live in a bounded LRU; nothing outlives its entry.

const native = require('../binding.js')
const { run } = require('./run.js')

const OP = 'sanitizeSessionHistory'

class Session {
  constructor(key) {
    this.key = key
    this.native = new native.TranscriptSessionNative()
    /** The input messages of the last call (our own array: the caller may mutate theirs). */
    this.seen = []
    /** The output of the last call (our own array: the caller gets a copy). */
    this.out = []
    this.cut = 0
    this.outCut = 0
    /** A call is under way (a getter on the caller's messages may call again: that one is stateless). */
    this.busy = false
  }

  /** Whether `messages` starts with exactly the messages of the last call. */
  extends(messages) {
    const seen = this.seen
    const n = seen.length
    if (this.cut === 0 || messages.length < n) return false
    for (let i = 0; i < n; i++) if (messages[i] !== seen[i]) return false
    return true
  }

  /**
   * The pass over `messages` with checked `options`: `{ messages, plan }` as `run` gives, the
   * messages always a new array. Continues from the cut when it can, else runs the full pass.
   */
  sanitize(messages, options) {
    if (this.busy) return run(OP, messages, options)
    this.busy = true
    try {
      if (Array.isArray(messages) && this.extends(messages)) {
        const r = this.continued(messages, options)
        if (r !== null) return r
      }
      return this.full(messages, options)
    } finally {
      this.busy = false
    }
  }

  continued(messages, options) {
    const suffix = messages.slice(this.cut)
    let r
    try {
      r = run(OP, suffix, options, 'messages', { native: this.native, start: this.cut })
    } catch {
      // The full pass reports the error with the message's own path.
      return null
    }
    if (r.messages === null) return null
    const out = this.out
    if (out.length > this.outCut) out.splice(this.outCut)
    const got = r.messages
    for (let i = 0; i < got.length; i++) out.push(got[i])
    const seen = this.seen
    for (let i = seen.length; i < messages.length; i++) seen.push(messages[i])
    this.step(r.plan.session)
    return { messages: out.slice(), plan: r.plan }
  }

  full(messages, options) {
    this.cut = 0
    const r = run(OP, messages, options, 'messages', { native: this.native, start: 0 })
    this.seen = messages.slice()
    this.out = r.messages.slice()
    this.step(r.plan.session)
    return { messages: r.messages === messages ? this.out.slice() : r.messages, plan: r.plan }
  }

  step(s) {
    this.cut = s.cut
    this.outCut = s.out
  }
}

// ---- the LRU of sessions, by sessionId ----

let maxSessions = 32
const sessions = new Map()

/** The session for `id` whose options serialise to `key` (a new one when they differ). */
function session(id, key) {
  let s = sessions.get(id)
  if (s !== undefined) sessions.delete(id)
  if (s === undefined || s.key !== key) s = new Session(key)
  if (maxSessions > 0) {
    sessions.set(id, s)
    while (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value)
  }
  return s
}

/** `{ maxSessions }`: how many sessions are remembered (0: none; the pass is then always full). */
function configure(o) {
  if (o.maxSessions !== undefined) {
    if (!(o.maxSessions >= 0 && o.maxSessions < 2 ** 32)) throw new RangeError(`options.maxSessions: expected a number from 0 to 2^32 - 1, got ${o.maxSessions}`)
    maxSessions = Math.floor(o.maxSessions)
    while (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value)
  }
  return { maxSessions, sessions: sessions.size }
}

module.exports = { Session, session, configure }
