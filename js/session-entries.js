'use strict'
// The session entries sanitizeSessionHistory reads (src/transcript/pipeline.rs): the last model
// snapshot whose data is an object, and whether a Google bootstrap marker exists. Only those cross
// the boundary, as `[customType, data]` pairs, the later entry first. A session manager's entries
// only grow between two calls, as its messages do, so a session remembers what it found and reads
// only the entries appended since (EntryMemo), after the same exact check as for the messages.

const native = require('../binding.js')

const [MODEL_SNAPSHOT, GOOGLE_BOOTSTRAP_MARKER] = native.transcriptSessionEntryTypes()

/** The manager's entries: null without a session manager, [] when they cannot be read. */
function entriesOf(sessionManager) {
  if (!sessionManager || typeof sessionManager.getEntries !== 'function') return null
  let entries
  try {
    entries = sessionManager.getEntries()
  } catch {
    return []
  }
  return Array.isArray(entries) ? entries : []
}

/** What the pass reads of `entries`: the index of the last snapshot and of the last marker (-1: none). */
class Found {
  constructor() {
    this.snapshot = -1
    this.marker = -1
  }

  /** Takes entries `from..entries.length` into account (later ones win). */
  scan(entries, from) {
    for (let i = from; i < entries.length; i++) this.take(entries[i], i)
  }

  /** All of `entries`, from the end, stopping once both are found (older entries are not read). */
  scanBack(entries) {
    for (let i = entries.length - 1; i >= 0 && (this.snapshot < 0 || this.marker < 0); i--) {
      const e = entries[i]
      if (!e || typeof e !== 'object' || e.type !== 'custom') continue
      if (this.snapshot < 0 && e.customType === MODEL_SNAPSHOT && e.data !== null && typeof e.data === 'object') this.snapshot = i
      else if (this.marker < 0 && e.customType === GOOGLE_BOOTSTRAP_MARKER) this.marker = i
    }
  }

  /** Entry `e` at index `i`, later than any taken before. */
  take(e, i) {
    if (!e || typeof e !== 'object' || e.type !== 'custom') return
    if (e.customType === MODEL_SNAPSHOT && e.data !== null && typeof e.data === 'object') this.snapshot = i
    else if (e.customType === GOOGLE_BOOTSTRAP_MARKER) this.marker = i
  }

  pairs(entries) {
    const snapshot = this.snapshot < 0 ? null : [MODEL_SNAPSHOT, entries[this.snapshot].data]
    const marker = this.marker < 0 ? null : [GOOGLE_BOOTSTRAP_MARKER, null]
    if (snapshot === null) return marker === null ? [] : [marker]
    if (marker === null) return [snapshot]
    return this.snapshot > this.marker ? [snapshot, marker] : [marker, snapshot]
  }
}

/** The `[customType, data]` pairs the pass reads (null without a session manager). */
function sessionEntries(sessionManager) {
  const entries = entriesOf(sessionManager)
  if (entries === null) return null
  const found = new Found()
  found.scanBack(entries)
  return found.pairs(entries)
}

/**
 * sessionEntries for the calls of one session: the entries before `seen.length` were read last
 * time; when the manager gives the very same entry objects there (`Object.is`, every one: exact),
 * only the entries after them are read. Any other change reads them all again. Entries are
 * records: an entry object changed in place is not seen (as for messages).
 */
class EntryMemo {
  constructor() {
    this.manager = null
    /** Our copy of the entry references read so far. */
    this.seen = []
    this.found = new Found()
    /** The pairs last given, kept while what they were made of is unchanged. */
    this.pairs = null
    this.snapshot = -1
    this.marker = -1
  }

  read(sessionManager) {
    const entries = entriesOf(sessionManager)
    if (entries === null) return null
    if (sessionManager !== this.manager || !startsWith(entries, this.seen)) {
      this.manager = sessionManager
      this.seen.length = 0
      this.found = new Found()
      this.pairs = null
    }
    const seen = this.seen
    const from = seen.length
    try {
      if (from === 0) this.found.scanBack(entries)
      else this.found.scan(entries, from)
    } catch (err) {
      // An entry that cannot be read (a throwing getter): nothing half-read is kept.
      this.manager = null
      throw err
    }
    for (let i = from; i < entries.length; i++) seen.push(entries[i])
    const f = this.found
    if (this.pairs === null || f.snapshot !== this.snapshot || f.marker !== this.marker) {
      this.pairs = f.pairs(entries)
      this.snapshot = f.snapshot
      this.marker = f.marker
    }
    return this.pairs
  }
}

/**
 * Whether `list` starts with exactly the objects of `seen`. `Object.is`, not `!==`: for two
 * references to one object both say the same, but V8 compiles `!==` on objects to a check of each
 * operand's map, a read of every object, and between an agent's turns those are out of the
 * cache; `Object.is` compares the references and reads no object. Four at a time, the comparisons
 * joined with `|`: one branch per four. Measured on 10,000 messages (least / median µs, load 14–17):
 * warm, `Object.is` 34 / 37–52 and `!==` 21 / 30–51; with the caches flushed first, as between an
 * agent's turns, `Object.is` 35 / 46–55 and `!==` 163–181 / 240–309 (a cache miss per message).
 * What `Object.is` costs per message is V8's SameValue builtin, called, not inlined (Node 20).
 */
function startsWith(list, seen) {
  const n = seen.length
  if (list.length < n) return false
  let i = 0
  for (; i + 4 <= n; i += 4) {
    if (!Object.is(list[i], seen[i]) | !Object.is(list[i + 1], seen[i + 1]) | !Object.is(list[i + 2], seen[i + 2]) | !Object.is(list[i + 3], seen[i + 3])) return false
  }
  for (; i < n; i++) if (!Object.is(list[i], seen[i])) return false
  return true
}

module.exports = { sessionEntries, EntryMemo, startsWith }
