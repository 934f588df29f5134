'use strict'
// Reading a transcript for `sanitize`, and writing the sanitized one back in the same format.
//
// Three formats:
// - `session`: a pi-coding-agent / OpenClaw session file (JSONL whose first entry is
//   `{type: 'session', id}`). The messages are the context the agent builds from it: the entries on
//   the path from the last entry up its `parentId` links (the current branch), where a `message`
//   entry gives its message, a `custom_message` entry a `custom` message, a `branch_summary` entry a
//   `branchSummary` message, and the latest `compaction` entry a `compactionSummary` message
//   followed by the messages it kept (from `firstKeptEntryId` on) and those after it. Files
//   without ids (session version 1) are one linear path.
// - `jsonl`: one message per line.
// - `json`: an array of messages, or an object with a `messages` array.
//
// Writing a session keeps every entry the pass did not touch byte for byte. On the current branch,
// a message entry whose message changed gets the new message (its id, timestamp and other fields
// kept); one whose message was dropped or merged away is removed and the chain relinked past it;
// a message the pass inserted becomes a new `message` entry with a deterministic id. The entries
// of the branch are chained (`parentId`) in the order of the sanitized messages, other entries on
// it (model changes, labels, custom entries, the compaction) stay after the message they followed.
// Entries on other branches come first, relinked when their parent was removed; the branch comes
// last, so its last entry is still the session's leaf.

const crypto = require('node:crypto')
const { CliError, parseJson, stringifyLike } = require('./common.js')

/** Where each message came from: the entry (session), the line (jsonl). Symbols are not sent to
 * the addon (its codec reads named fields) and not written by JSON.stringify, and object spreads
 * copy them, so a message the pass copied still names its source. */
const SOURCE = Symbol('transcript-hygiene source')

/** `{format, messages, ...}` for the text of a transcript file. */
function readTranscript(text, file) {
  const kind = detectFormat(text, file)
  if (kind === 'json') return readJson(text, file)
  return readLines(text, file)
}

function detectFormat(text, file) {
  if (/\.jsonl$/i.test(file)) return 'lines'
  if (/\.json$/i.test(file)) return 'json'
  const t = text.trimStart()
  if (t.startsWith('[')) return 'json'
  try {
    const v = JSON.parse(text)
    if (v !== null && typeof v === 'object' && Array.isArray(v.messages)) return 'json'
  } catch {}
  return 'lines'
}

function readJson(text, file) {
  const value = parseJson(text, file)
  let messages
  if (Array.isArray(value)) messages = value
  else if (value !== null && typeof value === 'object' && Array.isArray(value.messages)) messages = value.messages
  else throw new CliError(`${file}: expected a JSON array of messages or an object with a "messages" array`)
  return { format: 'json', text, value, messages, skipped: [] }
}

function readLines(text, file) {
  const lines = []
  const skipped = []
  const raw = text.split('\n')
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i].endsWith('\r') ? raw[i].slice(0, -1) : raw[i]
    if (line.trim() === '') continue
    let value
    try {
      value = JSON.parse(line)
    } catch {
      skipped.push(i + 1)
      continue
    }
    lines.push({ no: i + 1, raw: line, value })
  }
  if (lines.length === 0) throw new CliError(`${file}: no JSON lines in it`)
  const first = lines[0].value
  if (first !== null && typeof first === 'object' && first.type === 'session') return readSession(lines, skipped, file)
  const messages = lines.map((l) => {
    if (l.value === null || typeof l.value !== 'object' || Array.isArray(l.value)) {
      throw new CliError(`${file}: line ${l.no}: expected a message object (a session file starts with a {"type":"session"} header)`)
    }
    l.value[SOURCE] = l
    return l.value
  })
  return { format: 'jsonl', text, lines, messages, skipped }
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

function readSession(lines, skipped, file) {
  const header = lines[0]
  const entries = []
  for (let i = 1; i < lines.length; i++) {
    const e = lines[i].value
    if (!isObj(e)) throw new CliError(`${file}: line ${lines[i].no}: expected an entry object`)
    entries.push({ line: lines[i], entry: e })
  }
  const tree = entries.some((x) => typeof x.entry.id === 'string')
  const byId = new Map()
  if (tree) for (const x of entries) if (typeof x.entry.id === 'string') byId.set(x.entry.id, x)

  // The current branch: from the last entry up the parentId links (the linear file when no ids).
  let branch
  if (!tree) branch = entries.slice()
  else {
    branch = []
    const seen = new Set()
    for (let x = entries[entries.length - 1]; x !== undefined && !seen.has(x); ) {
      seen.add(x)
      branch.push(x)
      const p = x.entry.parentId
      x = p ? byId.get(p) : undefined
    }
    branch.reverse()
  }

  let compaction = -1
  for (let i = 0; i < branch.length; i++) if (branch[i].entry.type === 'compaction') compaction = i
  const items = []
  const add = (x) => {
    const m = contextMessage(x, file)
    if (m !== undefined) {
      m[SOURCE] = x
      items.push(m)
    }
  }
  if (compaction < 0) for (const x of branch) add(x)
  else {
    const c = branch[compaction]
    const summary = {
      role: 'compactionSummary',
      summary: c.entry.summary,
      tokensBefore: c.entry.tokensBefore,
      timestamp: epochMs(c.entry.timestamp),
    }
    summary[SOURCE] = c
    items.push(summary)
    const firstKept = firstKeptEntry(c.entry, lines, entries, byId)
    let keeping = false
    for (let i = 0; i < compaction; i++) {
      if (branch[i] === firstKept) keeping = true
      if (keeping) add(branch[i])
    }
    for (let i = compaction + 1; i < branch.length; i++) add(branch[i])
  }
  return { format: 'session', lines, header, entries, branch, tree, byId, messages: items, skipped }
}

/** The compaction's first kept entry: by id, or by index in the file (session version 1). */
function firstKeptEntry(c, lines, entries, byId) {
  if (typeof c.firstKeptEntryId === 'string') return byId.get(c.firstKeptEntryId)
  if (typeof c.firstKeptEntryIndex === 'number') {
    // Version 1 counts the entries of the file, header included (as `lines` does).
    const l = lines[c.firstKeptEntryIndex]
    return entries.find((x) => x.line === l)
  }
  return undefined
}

const epochMs = (iso) => new Date(iso).getTime()

/** The context message an entry of the branch gives, if any. */
function contextMessage(x, file) {
  const e = x.entry
  switch (e.type) {
    case 'message':
      if (!isObj(e.message)) throw new CliError(`${file}: line ${x.line.no}: a "message" entry without a message object`)
      return e.message
    case 'custom_message':
      return { role: 'custom', customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: epochMs(e.timestamp) }
    case 'branch_summary':
      return e.summary ? { role: 'branchSummary', summary: e.summary, fromId: e.fromId, timestamp: epochMs(e.timestamp) } : undefined
    default:
      return undefined
  }
}

/** Where message `i` of the transcript came from, for people: `{line, entryId}`. */
function origin(t, message) {
  const src = message !== null && typeof message === 'object' ? message[SOURCE] : undefined
  if (src === undefined) return {}
  if (t.format === 'session') return { line: src.line.no, entryId: typeof src.entry.id === 'string' ? src.entry.id : undefined }
  return { line: src.no }
}

/**
 * The text of the transcript with `out` (the sanitized messages) in place of its messages, in the
 * input's format. `notes` collects what could not be written.
 */
function writeTranscript(t, out, notes) {
  if (t.format === 'json') {
    const value = Array.isArray(t.value) ? out : { ...t.value, messages: out }
    return stringifyLike(value, t.text)
  }
  if (t.format === 'jsonl') {
    return out.map((m) => (isObj(m) && m[SOURCE] !== undefined && m === m[SOURCE].value ? m[SOURCE].raw : JSON.stringify(m))).join('\n') + '\n'
  }
  return writeSession(t, out, notes)
}

function writeSession(t, out, notes) {
  // Which entry each sanitized message belongs to; a message claimed twice is new the second time.
  const claimed = new Map()
  const owner = out.map((m) => {
    const src = isObj(m) ? m[SOURCE] : undefined
    if (src === undefined || claimed.has(src)) return undefined
    claimed.set(src, m)
    return src
  })

  // The branch's other entries follow the last surviving context entry before them.
  const sources = new Set()
  for (const m of t.messages) sources.add(m[SOURCE])
  const head = []
  const after = new Map()
  const removed = new Set()
  let anchor = null
  for (const x of t.branch) {
    const inContext = sources.has(x) && x.entry.type !== 'compaction'
    if (inContext && claimed.has(x)) {
      anchor = x
      after.set(x, [])
    } else if (inContext) {
      removed.add(x)
    } else if (anchor === null) head.push(x)
    else after.get(anchor).push(x)
  }

  const ids = new Set(t.byId.keys())
  const headerId = typeof t.header.value.id === 'string' ? t.header.value.id : ''
  let fresh = 0
  const newId = (prev) => {
    for (;;) {
      const id = crypto.createHash('sha256').update(`${headerId}\0${prev}\0${fresh++}`).digest('hex').slice(0, 8)
      if (!ids.has(id)) {
        ids.add(id)
        return id
      }
    }
  }

  // The new branch, in order: [{x?, message?}] where x is an existing entry, message its new one.
  const branch = head.map((x) => ({ x }))
  for (let i = 0; i < out.length; i++) {
    const x = owner[i]
    if (x === undefined) {
      branch.push({ message: out[i] })
      continue
    }
    if (x.entry.type === 'compaction') {
      if (out[i] !== findSource(t, x)) notes.push(`the compaction summary of line ${x.line.no} changed; the compaction entry is kept as it was`)
      continue
    }
    if (x.entry.type !== 'message' && out[i] !== findSource(t, x)) {
      notes.push(`the ${x.entry.type} entry of line ${x.line.no} changed; it is kept as it was`)
    }
    branch.push({ x, message: x.entry.type === 'message' ? out[i] : undefined })
    for (const y of after.get(x)) branch.push({ x: y })
  }

  const text = []
  const lineOf = (x, parentId, message) => {
    const e = x.entry
    const sameParent = !t.tree || (e.parentId ?? null) === parentId
    if (sameParent && (message === undefined || message === e.message)) return x.line.raw
    const copy = { ...e }
    if (t.tree) copy.parentId = parentId
    if (message !== undefined) copy.message = message
    return JSON.stringify(copy)
  }

  // Entries off the branch, relinked past removed entries.
  const onBranch = new Set(t.branch)
  const survivingParent = (p) => {
    const seen = new Set()
    let id = p
    for (let x = t.byId.get(id); x !== undefined && removed.has(x) && !seen.has(x); x = t.byId.get(id)) {
      seen.add(x)
      id = x.entry.parentId ?? null
    }
    return id
  }
  text.push(t.header.raw)
  for (const x of t.entries) {
    if (onBranch.has(x)) continue
    text.push(lineOf(x, t.tree ? survivingParent(x.entry.parentId ?? null) : null, undefined))
  }

  let prevId = t.branch.length > 0 ? (t.branch[0].entry.parentId ?? null) : null
  let prevTime = t.header.value.timestamp
  for (const b of branch) {
    if (b.x !== undefined) {
      text.push(lineOf(b.x, prevId, b.message))
      if (typeof b.x.entry.id === 'string') prevId = b.x.entry.id
      if (typeof b.x.entry.timestamp === 'string') prevTime = b.x.entry.timestamp
      continue
    }
    const m = b.message
    const ts = isObj(m) && Number.isFinite(m.timestamp) ? new Date(m.timestamp).toISOString() : prevTime
    const entry = t.tree ? { type: 'message', id: newId(prevId), parentId: prevId, timestamp: ts, message: m } : { type: 'message', timestamp: ts, message: m }
    text.push(JSON.stringify(entry))
    if (t.tree) prevId = entry.id
  }
  return text.join('\n') + '\n'
}

/** The context message built from entry `x` (identity: was it returned unchanged?). */
function findSource(t, x) {
  for (const m of t.messages) if (m[SOURCE] === x) return m
  return undefined
}

module.exports = { readTranscript, writeTranscript, origin, SOURCE }
