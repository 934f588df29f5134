'use strict'
// Response cleaning: the reply text crosses once, the cleaned parts come back as JSON.

const native = require('../binding.js')
const { joined } = require('./args.js')
const { OPTIONS, optionsJson } = require('./options.js')

function cleanResponse(content, options) {
  if (typeof content !== 'string') {
    throw new TypeError(`content: expected a string, got ${content === null ? 'null' : Array.isArray(content) ? 'an array' : typeof content}`)
  }
  const json = optionsJson(options, OPTIONS.cleanResponse, 'options')
  try {
    // The content comes back on its own: null when unchanged (the caller's string), a string, or
    // slices of the caller's string to join.
    const parts = native.cleanResponseJson(content, json)
    const r = JSON.parse(parts.json)
    r.content = joined(content, parts.content)
    return r
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

module.exports = { cleanResponse }
