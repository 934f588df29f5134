'use strict'
// Tool-call style (issue #4): read what the Rust rules need into a skeleton, make one native call,
// apply the answer. No rule is decided here. The answer names the caller's blocks and slices of the
// caller's strings (UTF-16 offsets), so untouched messages and blocks come back as the same
// objects and large texts are never copied back from Rust. src/tool_style/model.rs mirrors the
// skeleton's layout.

const native = require('../binding.js')
const { describe, isObject, optStr, fail, toJson } = require('./args.js')
const { json } = require('./options.js')

/**
 * The skeleton of `history`. `need` says what the operation reads: `texts` (the strings' contents),
 * `inputs` (tool_use inputs), `images` (image sources, checked).
 * Returns `{json, texts}`; `texts` holds the caller's strings, which the answer slices.
 */
function encode(history, op, need, options) {
  if (!Array.isArray(history)) fail('history', 'an array of messages', history)
  const texts = []
  const sent = []
  const text = (s) => {
    texts.push(s)
    if (need.texts) sent.push(s)
    return texts.length - 1
  }
  const source = (b, path) => {
    const s = b.source
    if (need.images) {
      const ok = isObject(s) && (s.type === 'url' ? typeof s.url === 'string' : typeof s.data === 'string' && typeof s.media_type === 'string')
      if (!ok) fail(`${path}.source`, "an image source {type: 'base64', media_type, data} or {type: 'url', url}", s)
    }
    return isObject(s) && s.type === 'url' ? 'url' : 'base64'
  }
  const msgs = new Array(history.length)
  for (let i = 0; i < history.length; i++) {
    const m = history[i]
    const mp = `history[${i}]`
    if (!isObject(m)) fail(mp, 'a message object', m)
    if (typeof m.role !== 'string') fail(`${mp}.role`, 'a string', m.role)
    const c = m.content
    if (typeof c === 'string') {
      msgs[i] = JSON.stringify([m.role, text(c)])
      continue
    }
    if (!Array.isArray(c)) fail(`${mp}.content`, 'a string or an array of content blocks', c)
    const blocks = new Array(c.length)
    for (let j = 0; j < c.length; j++) {
      const b = c[j]
      const bp = `${mp}.content[${j}]`
      if (!isObject(b)) fail(bp, 'a content block object', b)
      switch (b.type) {
        case 'text':
          if (typeof b.text !== 'string') fail(`${bp}.text`, 'a string', b.text)
          blocks[j] = `["t",${text(b.text)}]`
          break
        case 'tool_use': {
          if (typeof b.name !== 'string') fail(`${bp}.name`, 'a string', b.name)
          if (b.input !== undefined && !isObject(b.input)) fail(`${bp}.input`, 'an object', b.input)
          const input = need.inputs && b.input !== undefined ? toJson(b.input, `${bp}.input`) : 'null'
          blocks[j] = `[${JSON.stringify(['u', optStr(b.id), b.name]).slice(1, -1)},${input}]`
          break
        }
        case 'tool_result': {
          const rc = b.content
          let r
          if (typeof rc === 'string') r = text(rc)
          else if (rc === undefined || rc === null) r = null
          else if (Array.isArray(rc)) {
            r = rc.map((p, k) => {
              const pp = `${bp}.content[${k}]`
              if (!isObject(p)) fail(pp, 'a content block object', p)
              if (p.type === 'text') {
                if (typeof p.text !== 'string') fail(`${pp}.text`, 'a string', p.text)
                return ['t', text(p.text)]
              }
              return p.type === 'image' ? ['i', source(p, pp)] : ['o']
            })
          } else fail(`${bp}.content`, 'a string or an array of content blocks', rc)
          blocks[j] = JSON.stringify(['r', optStr(b.tool_use_id), r, b.is_error === true])
          break
        }
        case 'image':
          blocks[j] = JSON.stringify(['i', source(b, bp)])
          break
        default:
          blocks[j] = '["o"]'
      }
    }
    msgs[i] = `${JSON.stringify(m.role)},[${blocks.join(',')}]`
    msgs[i] = `[${msgs[i]}]`
  }
  const json = `{"op":${JSON.stringify(op)},"n":${texts.length},"options":${options === undefined ? 'null' : options},"msgs":[${msgs.join(',')}]}`
  return { json, texts, sent }
}

function call({ json, sent }) {
  try {
    return JSON.parse(native.toolStyleJson(json, sent))
  } catch (err) {
    if (err && err.code === 'InvalidArg') throw new TypeError(err.message)
    throw err
  }
}

/** A string from the answer's pieces: literals, `[i]` (text i), `[i, from, to]` (a slice). */
function build(pieces, texts) {
  let s = ''
  for (const p of pieces) s += typeof p === 'string' ? p : p.length === 1 ? texts[p[0]] : texts[p[0]].slice(p[1], p[2])
  return s
}

function block(spec, blocks, texts) {
  if (typeof spec === 'number') return blocks[spec]
  if (spec.t !== undefined) return { type: 'text', text: build(spec.t, texts) }
  if (spec.u !== undefined) {
    const [id, name, entries] = spec.u
    const input = Object.fromEntries(entries.map(([k, v]) => [k, v.s !== undefined ? build(v.s, texts) : v.v]))
    return { type: 'tool_use', id, name, input }
  }
  const [id, c, isError] = spec.r
  const content =
    c.s !== undefined
      ? build(c.s, texts)
      : c.p.map((p) => (typeof p === 'number' ? blocks[p] : Array.isArray(p) ? blocks[p[0]].content[p[1]] : { type: 'text', text: build(p.t, texts) }))
  const base = spec.base === null ? undefined : blocks[spec.base]
  const out = base === undefined ? { type: 'tool_result', tool_use_id: id, content } : { ...base, tool_use_id: id, content }
  if (isError !== null) out.is_error = isError
  return out
}

/** `history` with the answer's edits applied; the same array when there are none. */
function applyEdits(history, edits, texts) {
  if (edits.length === 0) return history
  const out = history.slice()
  for (const [m, specs] of edits) {
    const msg = history[m]
    const blocks = Array.isArray(msg.content) ? msg.content : []
    out[m] = { ...msg, content: specs.map((s) => block(s, blocks, texts)) }
  }
  return out
}

function recoverOptions(options) {
  if (options === undefined || options === null) return undefined
  if (!isObject(options)) fail('options', 'an object', options)
  const { tools, xmlProtocol } = options
  if (tools !== undefined) {
    if (!Array.isArray(tools)) fail('options.tools', 'an array of tool definitions', tools)
    tools.forEach((t, i) => {
      if (!isObject(t)) fail(`options.tools[${i}]`, 'a tool definition object', t)
    })
  }
  if (xmlProtocol !== undefined && typeof xmlProtocol !== 'boolean') fail('options.xmlProtocol', 'a boolean', xmlProtocol)
  return toJson({ tools: tools === undefined ? undefined : json(tools, 'options.tools'), xmlProtocol }, 'options.tools')
}

/**
 * Rebuilds native tool_use / tool_result pairs from calls and results flattened to text (see
 * index.d.ts). `history` is the input array itself when nothing was recovered.
 */
function recoverToolBlocks(history, options) {
  const opts = recoverOptions(options)
  const e = encode(history, 'recover', { texts: true }, opts)
  const a = call(e)
  return { history: applyEdits(history, a.edits, e.texts), recovered: a.recovered, unrecoverable: a.unrecoverable, warnings: a.warnings }
}

/** The history in one tool-call style: `'xml'` (calls and results as text) or `'json'` (native blocks). */
function convertToolStyle(history, style, options) {
  if (style === 'json') return recoverToolBlocks(history, options).history
  if (style !== 'xml') throw new TypeError(`style: expected 'xml' or 'json', got ${typeof style === 'string' ? JSON.stringify(style) : describe(style)}`)
  if (options !== undefined && options !== null && !isObject(options)) fail('options', 'an object', options)
  const e = encode(history, 'xml', { inputs: true }, undefined)
  return applyEdits(history, call(e).edits, e.texts)
}

/** Which style the history's tool calls are in, with the blocks that show it. */
function detectToolStyle(history) {
  return call(encode(history, 'detect', { texts: true }, undefined))
}

function imagePart(b, url) {
  const s = b.source
  return { type: 'image_url', image_url: { url: url ? s.url : `data:${s.media_type};base64,${s.data}` } }
}

/** The Anthropic-format history as OpenAI chat messages (see index.d.ts). */
function toOpenAiMessages(history) {
  const e = encode(history, 'openai', { images: true, texts: true }, undefined)
  const texts = e.texts
  return call(e).messages.map((o) => {
    const m = history[o.from]
    if (o.copy) return { role: m.role, content: m.content }
    if (o.role === 'tool') return { role: 'tool', tool_call_id: o.toolCallId, content: build(o.content.s, texts) }
    const out = { role: o.role }
    if (o.content !== undefined) {
      out.content =
        o.content.s !== undefined
          ? build(o.content.s, texts)
          : o.content.parts.map((p) =>
              p.text !== undefined ? { type: 'text', text: build(p.text, texts) } : imagePart(p.image.length === 1 ? m.content[p.image[0]] : m.content[p.image[0]].content[p.image[1]], p.url),
            )
    }
    if (o.toolCalls !== undefined) {
      out.tool_calls = o.toolCalls.map((b) => {
        const c = m.content[b]
        return { id: c.id, type: 'function', function: { name: c.name, arguments: c.input === undefined ? '{}' : toJson(c.input, `history[${o.from}].content[${b}].input`) } }
      })
    }
    if (o.reasoning && m.reasoning_details !== undefined) out.reasoning_details = m.reasoning_details
    return out
  })
}

module.exports = { convertToolStyle, recoverToolBlocks, detectToolStyle, toOpenAiMessages }
