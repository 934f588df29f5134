'use strict'
// The incremental sanitizeSessionHistory (src/transcript/incremental.rs decides; this file only
// remembers). A session keeps the input messages before the cut Rust proved last time and the
// output it returned: input messages before `cut` give output messages before `outCut` whatever
// follows them. When the next call's messages start with the very same objects (`Object.is`, checked
// one by one up to the cut: exact, and ~4 ns a message), only `messages.slice(cut)` crosses; Rust
// either proves the result equal to the full pass or answers "fall back", and the full pass runs.
// The options are fixed per session: Rust parses them and resolves the policy once, when the
// session is made. Sessions live in a bounded LRU; nothing outlives its entry.

const native = require('../binding.js')
const { run } = require('./run.js')
const { toJson } = require('./args.js')
const { EntryMemo, startsWith } = require('./session-entries.js')

const OP = 'sanitizeSessionHistory'

class Session {
  /** `config`: the checked options as JSON (js/args.js toJson), the same on every call. */
  constructor(config) {
    this.config = config
    this.native = new native.TranscriptSessionNative(config)
    /** The release the session's options name (undefined: the process default), for the codec. */
    this.version = JSON.parse(config).openclawVersion
    /** The input messages before the cut (our own array: the caller may mutate theirs). */
    this.seen = []
    /** The output of the last call (our own array: the caller gets a copy). */
    this.out = []
    this.outCut = 0
    /** A call is under way (a getter on the caller's messages may call again: that one is stateless). */
    this.busy = false
    /** The session entries read so far (js/session-entries.js). */
    this.memo = new EntryMemo()
    /** The last entry pairs sent and their JSON: the same pairs are not serialised again. */
    this.pairs = null
    this.pairsJson = null
  }

  /**
   * The pass over `messages` with checked options `o` (those the session was made with), the
   * session entries and the time: `{ messages, plan }` as `run` gives, the messages always a new
   * array. Continues from the cut when it can, else runs the full pass.
   */
  sanitize(messages, o, entries, now) {
    if (this.busy) return run(OP, messages, { ...o, sessionEntries: entries, now })
    this.busy = true
    try {
      if (Array.isArray(messages) && this.seen.length > 0 && startsWith(messages, this.seen)) {
        const r = this.continued(messages, entries, now)
        if (r !== null) return r
      }
      return this.full(messages, entries, now)
    } finally {
      this.busy = false
    }
  }

  continued(messages, entries, now) {
    const cut = this.seen.length
    const suffix = messages.slice(cut)
    let r
    try {
      r = run(OP, suffix, null, 'messages', { native: this.native, version: this.version, start: cut, entries: this.json(entries), now })
    } catch {
      // The full pass reports the error with the message's own path.
      return null
    }
    if (r.messages === null) return null
    const out = this.out
    out.length = this.outCut
    const got = r.messages
    for (let i = 0; i < got.length; i++) out.push(got[i])
    this.step(messages, cut, r.plan.session)
    return { messages: out.slice(), plan: r.plan }
  }

  full(messages, entries, now) {
    this.seen.length = 0
    const r = run(OP, messages, null, 'messages', { native: this.native, version: this.version, start: 0, entries: this.json(entries), now })
    this.out = r.messages.slice()
    this.step(messages, 0, r.plan.session)
    return { messages: r.messages === messages ? this.out.slice() : r.messages, plan: r.plan }
  }

  /** The entry pairs as JSON (null without a session manager). */
  json(pairs) {
    if (pairs === null) return null
    if (pairs !== this.pairs) {
      this.pairsJson = toJson(pairs, 'sessionEntries')
      this.pairs = pairs
    }
    return this.pairsJson
  }

  /** Moves the cut to `s.cut` (relative to the history), keeping the messages before it. */
  step(messages, from, s) {
    const seen = this.seen
    for (let i = from; i < s.cut; i++) seen.push(messages[i])
    this.outCut = s.out
  }
}

// ---- the LRU of sessions, by sessionId ----

let maxSessions = 32
const sessions = new Map()

/** The session for `id` whose options serialise to `config` (a new one when they differ). */
function session(id, config) {
  let s = sessions.get(id)
  if (s !== undefined) sessions.delete(id)
  if (s === undefined || s.config !== config) s = new Session(config)
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
