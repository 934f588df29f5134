'use strict'
// The prompt echo on a streamed reply: Rust owns the state; this wrapper checks arguments, makes
// one native call per delta and rejoins a surrogate pair split across two deltas.

const native = require('../binding.js')
const { describe } = require('./args.js')
const { OPTIONS, pick } = require('./options.js')

const FINISHED = 'ConversationContextStreamCleaner: the stream is finished; push() and finish() cannot be called after finish()'

class ConversationContextStreamCleaner {
  #native
  #high = ''
  #done = false

  constructor(options) {
    const { conversationContext } = pick(options, OPTIONS.conversationContextStream, 'options')
    this.#native = new native.ConversationContextStreamNative(conversationContext)
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
    return d === '' ? '' : this.#native.push(d)
  }

  finish() {
    if (this.#done) throw new Error(FINISHED)
    this.#done = true
    const head = this.#high === '' ? '' : this.#native.push(this.#high)
    return head + this.#native.finish()
  }
}

module.exports = { ConversationContextStreamCleaner }
