'use strict'
// Reading a Cline / Roo / Kilo `api_conversation_history.json` for `detect` and `migrate`.

const c = require('./common.js')

/** `{text, bytes, history}`: the file's bytes, its text and the history array. */
function readHistory(file) {
  if (c.isDirectory(file)) throw new c.CliError(`${file}: is a directory`)
  const bytes = c.readBytes(file)
  const text = bytes.toString('utf8')
  const value = c.parseJson(text, file)
  if (!Array.isArray(value)) throw new c.CliError(`${file}: expected a JSON array of messages (an api_conversation_history.json)`)
  return { bytes, text, history: value }
}

const isHistoryFile = (name) => name === 'api_conversation_history.json'

module.exports = { readHistory, isHistoryFile }
