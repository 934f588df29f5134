'use strict'
// Streamed response cleaning: Rust owns the state; this wrapper checks arguments, makes one
// native call per delta and rejoins a surrogate pair split across two deltas.

const native = require('../binding.js')
const { describe } = require('./args.js')
const { OPTIONS, optionsJson } = require('./options.js')

function rethrow(err) {
  if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
  throw err
}

const FINISHED = 'ResponseStreamCleaner: the stream is finished; push() and finish() cannot be called after finish()'

class ResponseStreamCleaner {
  #native
  #high = ''
  #done = false

  constructor(options) {
    const json = optionsJson(options, OPTIONS.cleanResponse, 'options')
    try {
      this.#native = new native.ResponseStreamCleanerNative(json)
    } catch (err) {
      rethrow(err)
    }
  }

  push(delta) {
    if (typeof delta !== 'string') throw new TypeError(`delta: expected a string, got ${describe(delta)}`)
    if (this.#done) throw new Error(FINISHED)
    let d = delta
    if (this.#high !== '') {
      d = this.#high + d
      this.#high = ''
    }
    // A high surrogate at the end may have its low half in the next delta: hold it back.
    const last = d.charCodeAt(d.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#high = d[d.length - 1]
      d = d.slice(0, -1)
    }
    if (d === '') return { content: '', reasoning: '', toolCalls: [] }
    const r = this.#native.push(d)
    if (r.charCodeAt(0) === 99) return { content: r.slice(1), reasoning: '', toolCalls: [] }
    return JSON.parse(r.slice(1))
  }

  finish() {
    if (this.#done) throw new Error(FINISHED)
    this.#done = true
    let head = null
    if (this.#high !== '') {
      const r = this.#native.push(this.#high)
      this.#high = ''
      head = r.charCodeAt(0) === 99 ? { content: r.slice(1), reasoning: '', toolCalls: [] } : JSON.parse(r.slice(1))
    }
    const end = JSON.parse(this.#native.finish())
    if (head !== null) {
      end.content = head.content + end.content
      end.reasoning = head.reasoning + end.reasoning
      end.toolCalls = head.toolCalls.concat(end.toolCalls)
    }
    return end
  }
}

module.exports = { ResponseStreamCleaner }
