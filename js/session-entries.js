'use strict'
// The session entries sanitizeSessionHistory reads (src/transcript/pipeline.rs): the model
// snapshots whose data is an object, and whether a Google bootstrap marker exists. Only those
// cross the boundary, as `[customType, data]` pairs: the snapshots oldest first (2026.3.23 mode:
// the last one only, all it reads), then the marker. OpenClaw 2026.9.6 reads the snapshots of the
// current branch (`getBranch()`, where a model switch is found) and the marker among all entries
// (`getEntries()`); 2026.3.23 reads both from `getEntries()`, and so does a manager without
// branches. A session manager's entries only grow between two calls, as its messages do, so a
// session remembers what it found and reads only the entries appended since (EntryMemo), after
// the same exact check as for the messages.

const native = require('../binding.js')

const [MODEL_SNAPSHOT, GOOGLE_BOOTSTRAP_MARKER] = native.transcriptSessionEntryTypes()

/** `sessionManager[method]()`: null when there is no such method, [] when it cannot be read. */
function listOf(sessionManager, method) {
  if (!sessionManager || typeof sessionManager[method] !== 'function') return null
  let entries
  try {
    entries = sessionManager[method]()
  } catch {
    return []
  }
  return Array.isArray(entries) ? entries : []
}

/**
 * The lists the pass reads, `{ snapshots, marker }` (the same array when one list serves both),
 * or null without a session manager. `branch`: 2026.9.6 mode.
 */
function listsOf(sessionManager, branch) {
  const entries = listOf(sessionManager, 'getEntries')
  const onBranch = branch ? listOf(sessionManager, 'getBranch') : null
  if (onBranch === null) return entries === null ? null : { snapshots: entries, marker: entries }
  return { snapshots: onBranch, marker: entries ?? [] }
}

const SNAPSHOT = 1
const MARKER = 2

/** What an entry is to the pass: SNAPSHOT, MARKER or 0. */
function kindOf(e) {
  if (!e || typeof e !== 'object' || e.type !== 'custom') return 0
  if (e.customType === MODEL_SNAPSHOT && e.data !== null && typeof e.data === 'object') return SNAPSHOT
  return e.customType === GOOGLE_BOOTSTRAP_MARKER ? MARKER : 0
}

/** What the pass reads of a list of entries: the indices of the snapshots and of a marker (-1: none). */
class Found {
  constructor() {
    this.snapshots = []
    this.marker = -1
  }

  /** Takes entries `from..entries.length` into account. */
  scan(entries, from) {
    for (let i = from; i < entries.length; i++) {
      const k = kindOf(entries[i])
      if (k === SNAPSHOT) this.snapshots.push(i)
      else if (k === MARKER) this.marker = i
    }
  }

  /**
   * Only the last snapshot and whether a marker exists (2026.3.23 mode reads no more): from the
   * end back, stopping once both are found.
   */
  scanLast(entries) {
    for (let i = entries.length - 1; i >= 0; i--) {
      const k = kindOf(entries[i])
      if (k === SNAPSHOT && this.snapshots.length === 0) this.snapshots.push(i)
      else if (k === MARKER && this.marker < 0) this.marker = i
      if (this.snapshots.length > 0 && this.marker >= 0) return
    }
  }
}

/** The pairs for the snapshots found in `list` (all, or the last) and the marker found (or not). */
function pairsOf(list, snaps, marked, all) {
  const at = all ? snaps.snapshots : snaps.snapshots.slice(-1)
  const out = at.map((i) => [MODEL_SNAPSHOT, list[i].data])
  if (marked) out.push([GOOGLE_BOOTSTRAP_MARKER, null])
  return out
}

/** The `[customType, data]` pairs the pass reads (null without a session manager); `branch`: 2026.9.6 mode. */
function sessionEntries(sessionManager, branch = false) {
  const l = listsOf(sessionManager, branch)
  if (l === null) return null
  const snaps = new Found()
  if (!branch) {
    snaps.scanLast(l.snapshots)
    return pairsOf(l.snapshots, snaps, snaps.marker >= 0, false)
  }
  snaps.scan(l.snapshots, 0)
  let marks = snaps
  if (l.marker !== l.snapshots) {
    marks = new Found()
    marks.scan(l.marker, 0)
  }
  return pairsOf(l.snapshots, snaps, marks.marker >= 0, branch)
}

/** One list of entries read call after call: only the entries after those seen, while it starts with them. */
class ListMemo {
  constructor() {
    /** Our copy of the entry references read so far. */
    this.seen = []
    this.found = new Found()
  }

  reset() {
    this.seen.length = 0
    this.found = new Found()
  }

  /** Takes `list` into account; true when it had to be read from its start again. */
  read(list) {
    const again = !startsWith(list, this.seen)
    if (again) this.reset()
    const seen = this.seen
    const from = seen.length
    try {
      this.found.scan(list, from)
    } catch (err) {
      // An entry that cannot be read (a throwing getter): nothing half-read is kept.
      this.reset()
      throw err
    }
    for (let i = from; i < list.length; i++) seen.push(list[i])
    return again
  }
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
    this.branch = false
    this.snaps = new ListMemo()
    this.marks = new ListMemo()
    /** The pairs last given, kept while what they were made of is unchanged. */
    this.pairs = null
    this.key = ''
  }

  read(sessionManager, branch = false) {
    const l = listsOf(sessionManager, branch)
    if (l === null) return null
    if (sessionManager !== this.manager || branch !== this.branch) {
      this.manager = sessionManager
      this.branch = branch
      this.snaps.reset()
      this.marks.reset()
      this.pairs = null
    }
    const two = l.marker !== l.snapshots
    try {
      if (this.snaps.read(l.snapshots) | (two && this.marks.read(l.marker))) this.pairs = null
    } catch (err) {
      this.manager = null
      throw err
    }
    const s = this.snaps.found.snapshots
    const marked = (two ? this.marks.found : this.snaps.found).marker >= 0
    const key = `${s.length} ${s.length > 0 ? s[s.length - 1] : -1} ${marked}`
    if (this.pairs === null || key !== this.key) {
      this.pairs = pairsOf(l.snapshots, this.snaps.found, marked, branch)
      this.key = key
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
