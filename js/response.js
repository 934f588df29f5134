'use strict'
// Response cleaning: the reply text crosses once, the cleaned parts come back as JSON.

const native = require('../binding.js')
const { toJson } = require('./args.js')
const { OPTIONS, pick } = require('./options.js')

function cleanResponse(content, options) {
  if (typeof content !== 'string') {
    throw new TypeError(`content: expected a string, got ${content === null ? 'null' : Array.isArray(content) ? 'an array' : typeof content}`)
  }
  const json = toJson(pick(options, OPTIONS.cleanResponse, 'options'), 'options')
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
