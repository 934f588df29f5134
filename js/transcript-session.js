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
const { run, withSkeleton, keepPlan, replay } = require('./run.js')
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
    /** The skeleton fields no rule of the session's pass reads (left out of every skeleton). */
    this.unread = this.native.unread()
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
    // For the content-keyed path: the skeleton of the messages before the cut (js/codec.js's
    // encoding, message after message, without the count), and the plans that built the output
    // before `outCut`, each `{ start, len, plan, take }`: replaying `plan` on the history's
    // messages `start..start + len` gives `take` messages of that output. `keyed` is false when
    // the skeleton could not be kept (a lone surrogate maps `strs` as a whole).
    this.skelCodes = new Uint32Array(1024)
    this.skelLen = 0
    this.skelReals = new Float64Array(256)
    this.skelRealLen = 0
    this.skelBytes = new Uint8Array(1024)
    this.skelByteLen = 0
    this.segments = []
    this.keyed = true
    // Where each cut left them (with `keep`): `[cut, skelLen, skelRealLen, skelByteLen, segments.length]`
    // per call, to come back to an earlier cut when Rust names one.
    this.cuts = []
    // Kept only once a call has come with other objects than the previous one's: an agent that
    // hands the same objects back pays neither the time nor the memory.
    this.keep = false
    /** How the calls went: continued after the same objects, after the same skeleton, or full. */
    this.hits = { identity: 0, content: 0, full: 0 }
    /** How many of the continued calls ran from an earlier cut than the last one. */
    this.earlier = 0
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
      if (Array.isArray(messages) && this.seen.length > 0) {
        const how = startsWith(messages, this.seen) ? 'identity' : this.keep ? (this.rebuilt(messages) ? 'content' : null) : ((this.keep = true), null)
        const r = how === null ? null : this.continued(messages, entries, now)
        if (r !== null) {
          this.hits[how]++
          return r
        }
      }
      this.hits.full++
      return this.full(messages, entries, now)
    } finally {
      this.busy = false
    }
  }

  /**
   * The content-keyed check, for a caller that builds new message objects for every call (as
   * OpenClaw 2026.9.6's runner does, from its store): when the skeleton of `messages` before the
   * cut is, byte for byte, the one remembered, and Rust says the prefix's output follows from its
   * skeleton alone, the remembered plans are replayed on the new objects (untouched ones come back
   * as themselves) and they become the prefix. False when anything differs.
   */
  rebuilt(messages) {
    const cut = this.seen.length
    if (!this.keyed || messages.length < cut || !this.native.contentKeyed()) return false
    let same
    try {
      same = withSkeleton(messages.slice(0, cut), this.version, this.unread, (k) => !k.lone && sameBytes(k.strs, this.skelBytes, this.skelByteLen) && sameCodes(k.codes, this.skelCodes, this.skelLen) && sameReals(k.reals, this.skelReals, this.skelRealLen))
    } catch {
      // The full pass reports the error with the message's own path.
      return false
    }
    if (!same) return false
    const out = []
    for (const { start, len, plan, take } of this.segments) {
      const got = replay(messages.slice(start, start + len), plan, take)
      for (let i = 0; i < take; i++) out.push(got[i])
    }
    this.out = out
    const seen = this.seen
    for (let i = 0; i < cut; i++) seen[i] = messages[i]
    return true
  }

  continued(messages, entries, now, again = false) {
    const cut = this.seen.length
    const suffix = messages.slice(cut)
    let r
    try {
      r = run(OP, suffix, null, 'messages', { native: this.native, version: this.version, unread: this.unread, start: cut, entries: this.json(entries), now, marks: this.keep })
    } catch {
      // The full pass reports the error with the message's own path.
      return null
    }
    if (r.messages === null) {
      // Rust may name an earlier cut of this session to run from instead of the full pass.
      const e = r.plan.session.earlier
      if (e === undefined || again || !this.back(e.cut, e.out)) return null
      this.earlier++
      return this.continued(messages, entries, now, true)
    }
    const out = this.out
    const outCut = this.outCut
    out.length = outCut
    const got = r.messages
    for (let i = 0; i < got.length; i++) out.push(got[i])
    this.step(messages, cut, r, suffix.length)
    if (this.keep && this.outCut > outCut) this.segments.push({ start: cut, len: suffix.length, plan: keepPlan(r.plan), take: this.outCut - outCut })
    this.mark()
    return { messages: out.slice(), plan: r.plan }
  }

  /** Notes where the cut left the content-keyed state (see `cuts`). */
  mark() {
    if (this.keep) this.cuts.push(this.seen.length, this.skelLen, this.skelRealLen, this.skelByteLen, this.segments.length)
  }

  /**
   * Back to the earlier cut `cut` (output `out`), as the call that reached it left the session.
   * False when this session never stood there.
   */
  back(cut, out) {
    if (cut > this.seen.length || out > this.outCut) return false
    if (this.keep) {
      const c = this.cuts
      let i = c.length - 5
      while (i >= 0 && c[i] !== cut) i -= 5
      if (i < 0) return false
      this.skelLen = c[i + 1]
      this.skelRealLen = c[i + 2]
      this.skelByteLen = c[i + 3]
      this.segments.length = c[i + 4]
      c.length = i + 5
    }
    this.seen.length = cut
    this.outCut = out
    return true
  }

  full(messages, entries, now) {
    this.seen.length = 0
    this.skelLen = 0
    this.skelRealLen = 0
    this.skelByteLen = 0
    this.keyed = true
    this.segments = []
    this.cuts = []
    const r = run(OP, messages, null, 'messages', { native: this.native, version: this.version, unread: this.unread, start: 0, entries: this.json(entries), now, marks: this.keep })
    this.out = r.messages.slice()
    this.step(messages, 0, r, messages.length)
    if (this.keep && this.outCut > 0) this.segments.push({ start: 0, len: messages.length, plan: keepPlan(r.plan), take: this.outCut })
    this.mark()
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

  /**
   * Moves the cut to the one run `r` proved (relative to the history; `r` ran on the messages from
   * `from`), keeping the messages before it and their skeleton.
   */
  step(messages, from, r, len) {
    const s = r.plan.session
    const seen = this.seen
    for (let i = from; i < s.cut; i++) seen.push(messages[i])
    this.outCut = s.out
    const k = r.skeleton
    if (k.lone) this.keyed = false
    if (!this.keep || !this.keyed || s.cut <= from) return
    // The skeleton of messages `from..s.cut`, out of the run's (which holds `len` messages).
    const marks = k.marks
    const end = 3 * (s.cut - from)
    if (marks[3 * len] !== k.codes.length || marks[3 * len + 1] !== k.reals.length) {
      // Not the marks of this skeleton (cannot happen while nothing encodes between run and step).
      this.keyed = false
      return
    }
    const codes = k.codes.subarray(marks[0], marks[end])
    this.skelCodes = appended(this.skelCodes, this.skelLen, codes)
    this.skelLen += codes.length
    const reals = k.reals.subarray(marks[1], marks[end + 1])
    this.skelReals = appended(this.skelReals, this.skelRealLen, reals)
    this.skelRealLen += reals.length
    const bytes = k.strs.subarray(marks[2], marks[end + 2])
    this.skelBytes = appended(this.skelBytes, this.skelByteLen, bytes)
    this.skelByteLen += bytes.length
  }
}

/** `buf` (a typed array holding `len` items) with `piece` written after them: `buf` itself, or a
 * copy grown by half (or to fit) when `piece` does not fit. */
function appended(buf, len, piece) {
  if (len + piece.length > buf.length) {
    const bigger = new buf.constructor(Math.max(Math.ceil(1.5 * buf.length), len + piece.length))
    bigger.set(buf.subarray(0, len))
    buf = bigger
  }
  buf.set(piece, len)
  return buf
}

/** Whether `a` (a skeleton's string bytes) is the first `len` bytes of `b`. */
function sameBytes(a, b, len) {
  if (a.length !== len) return false
  return Buffer.from(a.buffer, a.byteOffset, len).equals(Buffer.from(b.buffer, b.byteOffset, len))
}

/** Whether `a` (a skeleton's codes, the message count first) holds, past its count, the first `len` codes of `b`. */
function sameCodes(a, b, len) {
  if (a.length - 1 !== len) return false
  const x = Buffer.from(a.buffer, a.byteOffset + 4, len * 4)
  const y = Buffer.from(b.buffer, b.byteOffset, len * 4)
  return x.equals(y)
}

/** Whether `a` holds the first `len` numbers of `b`, bit for bit (-0 is not 0; NaN is itself). */
function sameReals(a, b, len) {
  if (a.length !== len) return false
  const x = Buffer.from(a.buffer, a.byteOffset, len * 8)
  const y = Buffer.from(b.buffer, b.byteOffset, len * 8)
  return x.equals(y)
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

/** The session remembered for `id`, if any, without touching the LRU order (for tests). */
function peek(id) {
  return sessions.get(id)
}

module.exports = { Session, session, configure, peek }
