'use strict'
// sanitizeRequest / sanitizeRequestBuffer: the transcript hygiene on a request body in its wire
// protocol (a gateway's view). An object body crosses as its skeleton (js/wire-codec.js: only the
// fields the rules read), a Buffer as the gateway's bytes; Rust reads it into the rules' message
// model, runs the target's rules and answers with edits over the body's own structure (see
// src/transcript/wire/): applied here to objects, so every untouched message, part and tool call
// is the very same object, or applied in Rust to the bytes. No rule is decided here.

const { Buffer } = require('node:buffer')
const native = require('../binding.js')
const { OPTIONS, pick } = require('./options.js')
const { describe, isObject } = require('./args.js')
const { encode } = require('./wire-codec.js')
const { fromPrivate } = require('./codec.js')

const PROTOCOLS = native.wireProtocolNames()

function item(msgs, it) {
  if (Array.isArray(it)) {
    const src = msgs[it[0]][it[1]][it[2]]
    return it.length === 3 ? src : { ...src, ...it[3] }
  }
  if (it.in !== undefined) {
    const [m, list, i, key, sets] = it.in
    const src = msgs[m][list][i]
    return isObject(src[key]) ? { ...src, [key]: { ...src[key], ...sets } } : src
  }
  if (it.patch !== undefined) {
    const [m, list, i, del, sets, key, inner] = it.patch
    const o = { ...msgs[m][list][i] }
    for (const k of del) delete o[k]
    Object.assign(o, sets)
    if (key !== null && isObject(o[key])) o[key] = { ...o[key], ...inner }
    return o
  }
  if (it.text !== undefined) return { type: 'text', text: it.text[1] + msgs[it.text[0]].content }
  return it.new
}

function message(msgs, e) {
  const o = e.from === null ? {} : { ...msgs[e.from] }
  for (const op of e.ops) {
    if (op[0] === 's') o[op[1]] = op[2]
    else if (op[0] === 'd') delete o[op[1]]
    else if (op[0] === 'j') o[op[1]] = op[2].map((i) => msgs[i][op[1]]).filter((s) => typeof s === 'string').join('\n')
    else o[op[1]] = op[2].map((it) => item(msgs, it))
  }
  return o
}

/**
 * `o` with the values of `leaves[from..to]` set at their paths (`[path, value]`, in the body's
 * order, sharing `path[0..d]`): a shallow copy of each container on the way, one per container
 * whatever the number of leaves under it.
 */
function patch(o, leaves, from, to, d) {
  const copy = Array.isArray(o) ? o.slice() : { ...o }
  for (let i = from; i < to; ) {
    const k = leaves[i][0][d]
    let j = i + 1
    while (j < to && leaves[j][0][d] === k) j++
    copy[k] = leaves[i][0].length === d + 1 ? leaves[i][1] : patch(o[k], leaves, i, j, d + 1)
    i = j
  }
  return copy
}

/** `body` with the plan's edits: a shallow copy, untouched messages and items shared. */
function applyPlan(input, plan) {
  const body = plan.leaves.length === 0 ? input : patch(input, plan.leaves, 0, plan.leaves.length, 0)
  const out = { ...body }
  if (plan.out !== undefined) {
    const msgs = body[plan.key]
    out[plan.key] = plan.out.map((e) => (typeof e === 'number' ? msgs[e] : message(msgs, e)))
  }
  for (const k of plan.del) delete out[k]
  return out
}

/** `options` type-checked, with a protocol the native side reads (a TypeError otherwise). */
function checked(options) {
  if (!isObject(options)) throw new TypeError(`options: expected an object with a protocol, got ${describe(options)}`)
  const o = pick(options, OPTIONS.sanitizeRequest, 'options')
  if (!PROTOCOLS.includes(o.protocol)) {
    const got = typeof o.protocol === 'string' ? JSON.stringify(o.protocol) : describe(o.protocol)
    throw new TypeError(`options.protocol: expected ${PROTOCOLS.map((p) => `'${p}'`).join(' or ')}, got ${got}`)
  }
  return o
}

/**
 * The body repaired for `options`' target, in the same protocol: the body itself when nothing
 * needed repair; `{ body, changes }` under `report: true`.
 */
function sanitizeRequest(body, options) {
  if (!isObject(body)) throw new TypeError(`body: expected an object (a request body), got ${describe(body)}`)
  const o = checked(options)
  const { protocol, ...rest } = o
  const skeleton = encode(body)
  const text = native.sanitizeRequestSkeleton(protocol, skeleton[0], skeleton[1], JSON.stringify(rest), body)
  // Ids that differ only by a lone surrogate crossed as distinct private-use characters.
  const answer = skeleton[2] ? JSON.parse(text, fromPrivate) : JSON.parse(text)
  if (answer.error !== undefined) throw new TypeError(answer.error)
  const out = answer.plan === null ? body : applyPlan(body, answer.plan)
  return o.report === true ? { body: out, changes: answer.changes } : out
}

/**
 * The same repair on the body's bytes (a Buffer or Uint8Array of UTF-8 JSON), answered as a
 * Buffer: the body itself (over the same memory) when nothing needed repair, otherwise new bytes
 * in which every untouched range is copied as it was. No JS object is built for the body.
 */
function sanitizeRequestBuffer(body, options) {
  if (!(body instanceof Uint8Array)) {
    throw new TypeError(`body: expected a Buffer or Uint8Array (the request body as UTF-8 JSON), got ${describe(body)}`)
  }
  const o = checked(options)
  const { protocol, ...rest } = o
  const answer = native.sanitizeRequestBuffer(protocol, body, JSON.stringify(rest))
  if (answer.error != null) throw new TypeError(answer.error)
  const out = answer.body ?? (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength))
  return o.report === true ? { body: out, changes: JSON.parse(answer.changes) } : out
}

module.exports = { sanitizeRequest, sanitizeRequestBuffer }
