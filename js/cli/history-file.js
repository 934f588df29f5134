'use strict'
// Reading a Cline / Roo / Kilo `api_conversation_history.json` for `detect` and `migrate`.

const path = require('node:path')
const c = require('./common.js')

/** `{text, bytes, history}`: the file's bytes, its text and the history array. */
function readHistory(file) {
  if (c.isDirectory(file)) throw new c.CliError(`${file}: is a directory`)
  const bytes = c.readBytes(file)
  const text = bytes.toString('utf8')
  let value
  try {
    value = JSON.parse(text)
  } catch (err) {
    if (looksLikeJsonLines(text)) {
      throw new c.CliError(`${file}: one JSON value per line (a session or a .jsonl transcript): ${c.PROG} detect and migrate read a Cline / Roo / Kilo api_conversation_history.json (one JSON array); ${c.PROG} sanitize reads sessions`)
    }
    value = c.parseJson(text, file)
  }
  if (!Array.isArray(value)) throw new c.CliError(`${file}: expected a JSON array of messages (an api_conversation_history.json)`)
  return { bytes, text, history: value }
}

const isHistoryFile = (name) => name === 'api_conversation_history.json'

/** The first two non-blank lines each parse as JSON objects. */
function looksLikeJsonLines(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '').slice(0, 2)
  if (lines.length < 2) return false
  return lines.every((l) => {
    try {
      const v = JSON.parse(l)
      return v !== null && typeof v === 'object' && !Array.isArray(v)
    } catch {
      return false
    }
  })
}

/**
 * A Cline / Roo / Kilo history rather than pi / OpenClaw messages: the file has that name, or its
 * messages hold Anthropic wire blocks (`tool_use`, `tool_result`), which pi never writes.
 */
function isClineHistory(messages, file) {
  if (isHistoryFile(path.basename(file))) return true
  for (const m of messages) {
    if (m === null || typeof m !== 'object' || !Array.isArray(m.content)) continue
    if (m.role === 'toolResult') return false
    for (const b of m.content) if (b !== null && typeof b === 'object' && (b.type === 'tool_use' || b.type === 'tool_result')) return true
  }
  return false
}

module.exports = { readHistory, isHistoryFile, isClineHistory }
