'use strict'
// A stream's deltas are UTF-16 strings cut anywhere, also between the two halves of a surrogate
// pair (an emoji). Rust reads a delta as UTF-8, where a lone half cannot cross: both stream
// wrappers hold a trailing high surrogate back and put it before the next delta.

class PairJoiner {
  #high = ''

  /** The part of `delta` to hand on now: a high surrogate kept from before in front, one at the end held back. */
  take(delta) {
    let d = delta
    if (this.#high !== '') {
      d = this.#high + d
      this.#high = ''
    }
    const last = d.charCodeAt(d.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#high = d[d.length - 1]
      d = d.slice(0, -1)
    }
    return d
  }

  /** The high surrogate still held at the end of the stream ('' when none), handed on alone. */
  rest() {
    const h = this.#high
    this.#high = ''
    return h
  }
}

module.exports = { PairJoiner }
