'use strict'
// The prompt echo on a streamed reply: Rust owns the state; this wrapper checks arguments, makes
// one native call per delta and rejoins a surrogate pair split across two deltas.

const native = require('../binding.js')
const { describe } = require('./args.js')
const { OPTIONS, pick } = require('./options.js')
const { PairJoiner } = require('./pair-joiner.js')

const FINISHED = 'ConversationContextStreamCleaner: the stream is finished; push() and finish() cannot be called after finish()'

class ConversationContextStreamCleaner {
  #native
  #pairs = new PairJoiner()
  #done = false

  constructor(options) {
    const { conversationContext } = pick(options, OPTIONS.conversationContextStream, 'options')
    this.#native = new native.ConversationContextStreamNative(conversationContext)
  }

  push(delta) {
    if (typeof delta !== 'string') throw new TypeError(`delta: expected a string, got ${describe(delta)}`)
    if (this.#done) throw new Error(FINISHED)
    const d = this.#pairs.take(delta)
    return d === '' ? '' : this.#native.push(d)
  }

  finish() {
    if (this.#done) throw new Error(FINISHED)
    this.#done = true
    const high = this.#pairs.rest()
    const head = high === '' ? '' : this.#native.push(high)
    return head + this.#native.finish()
  }
}

module.exports = { ConversationContextStreamCleaner }
