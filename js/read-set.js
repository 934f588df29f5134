'use strict'
// Which skeleton fields a call's rules read: src/transcript/read_set.rs decides, from the options
// (the policy they resolve to) and the release that runs; the codec leaves the others out. The
// answer depends on a few options only (Rust names them), so it is asked once per distinct set of
// their values and remembered.

const native = require('../binding.js')
const { toJson } = require('./args.js')

const KEYS = native.transcriptUnreadOptions()
const VERSION = 'openclawVersion'
if (!KEYS.includes(VERSION)) throw new Error('read-set: the release is not among the options the read set depends on')

// A handful of providers and models in a process: the map is emptied if it ever grows past this.
const MAX = 64
const known = new Map()

/**
 * The bits of the fields no rule of operation `op` reads with checked options `options`, when
 * release `version` runs (see src/transcript/read_set.rs).
 */
function unread(op, options, version) {
  // Strings as themselves, anything else (a policy or model object) as its JSON: a letter before
  // each says which, so no two different sets of values give one key.
  let key = `${op}\x1f${version}`
  for (let i = 0; i < KEYS.length; i++) {
    if (KEYS[i] === VERSION) continue
    const v = options[KEYS[i]]
    key += typeof v === 'string' ? `\x1fs${v}` : v === undefined ? '\x1fu' : `\x1fj${JSON.stringify(v)}`
  }
  let bits = known.get(key)
  if (bits === undefined) {
    const asked = {}
    for (const k of KEYS) asked[k] = k === VERSION ? version : options[k]
    bits = native.transcriptUnread(op, toJson(asked, 'options'))
    if (known.size >= MAX) known.clear()
    known.set(key, bits)
  }
  return bits
}

module.exports = { unread }
