'use strict'
// Response cleaning: the reply text crosses once, the cleaned parts come back as JSON.

const native = require('../binding.js')
const { toJson } = require('./args.js')

const OPTION_KEYS = ['format', 'model', 'tools', 'toolCalls', 'thinking', 'reasoningOpen']

function cleanResponse(content, options) {
  if (typeof content !== 'string') {
    throw new TypeError(`content: expected a string, got ${content === null ? 'null' : Array.isArray(content) ? 'an array' : typeof content}`)
  }
  const o = {}
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw new TypeError(`options: expected an object, got ${typeof options}`)
    for (const k of OPTION_KEYS) if (options[k] !== undefined) o[k] = options[k]
  }
  const json = toJson(o, 'options')
  try {
    // The content comes back as a string of its own (null when unchanged: the caller's string).
    const parts = native.cleanResponseJson(content, json)
    const r = JSON.parse(parts.json)
    r.content = parts.content ?? content
    return r
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

module.exports = { cleanResponse }
