'use strict'
// Streamed response cleaning: Rust owns the state; this wrapper checks arguments, makes one
// native call per delta and rejoins a surrogate pair split across two deltas.

const native = require('../binding.js')
const { describe } = require('./args.js')
const { OPTIONS, optionsJson } = require('./options.js')
const { PairJoiner } = require('./pair-joiner.js')

function rethrow(err) {
  if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
  throw err
}

const FINISHED = 'ResponseStreamCleaner: the stream is finished; push() and finish() cannot be called after finish()'

class ResponseStreamCleaner {
  #native
  #pairs = new PairJoiner()
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
    const d = this.#pairs.take(delta)
    if (d === '') return { content: '', reasoning: '', toolCalls: [] }
    const r = this.#native.push(d)
    if (r.charCodeAt(0) === 99) return { content: r.slice(1), reasoning: '', toolCalls: [] }
    return JSON.parse(r.slice(1))
  }

  finish() {
    if (this.#done) throw new Error(FINISHED)
    this.#done = true
    let head = null
    const high = this.#pairs.rest()
    if (high !== '') {
      const r = this.#native.push(high)
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
