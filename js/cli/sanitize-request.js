'use strict'
// `transcript-hygiene sanitize --protocol P body.json`: what sanitizeRequest changes in a request
// body held in a file (a gateway's captured request), and, with --write, the repaired body.

const th = require('../../index.js')
const c = require('./common.js')

/** The image-limit flags and the sanitizeRequest options they set. */
const IMAGE_OPTIONS = { 'max-dimension-px': 'maxDimensionPx', 'max-bytes': 'maxBytes', 'max-decode-bytes': 'maxDecodeBytes' }
const IMAGE_FLAGS = Object.keys(IMAGE_OPTIONS)

/** A flag's value as a positive whole number (`2000`, `5e6`), or a CliError naming the flag. */
function count(flag, text) {
  const n = Number(text)
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < 1) throw new c.CliError(`--${flag}: expected a positive whole number, got ${JSON.stringify(text)}`)
  return n
}

/** Runs the wire repair on the body in `file`; `v` are sanitize's parsed flags. */
function runRequest(file, v, io) {
  if (v.check && v.write !== undefined) throw new c.CliError(`${c.PROG} sanitize: --check and --write cannot be used together`)
  if (c.isDirectory(file)) throw new c.CliError(`${file}: --protocol reads one request body (a JSON file), not a directory`)
  const text = c.readText(file)
  const body = c.parseJson(text, file)
  const options = { protocol: v.protocol, report: true }
  if (v.provider !== undefined) options.provider = v.provider
  if (v['model-api'] !== undefined) options.modelApi = v['model-api']
  if (v['model-id'] !== undefined) options.modelId = v['model-id']
  if (v['policy-json'] !== undefined) options.policy = c.parseJson(v['policy-json'], '--policy-json')
  for (const flag of IMAGE_FLAGS) {
    if (v[flag] !== undefined) options[IMAGE_OPTIONS[flag]] = count(flag, v[flag])
  }
  let r
  try {
    r = th.sanitizeRequest(body, options)
  } catch (err) {
    if (err instanceof TypeError) throw new c.CliError(`${file}: ${err.message}`)
    throw err
  }
  let written = null
  if (v.write !== undefined && r.changes.length > 0) {
    written = c.writeFile(v.write, c.stringifyLike(r.body, text)).path
  }
  if (v.json) {
    io.stdout.write(`${JSON.stringify({ file, protocol: v.protocol, changes: r.changes, written }, null, 2)}\n`)
  } else {
    const lines = [`${file}: ${r.changes.length === 0 ? 'nothing to change' : c.plural(r.changes.length, 'change')} (${v.protocol})`]
    for (const ch of r.changes) lines.push(`  ${ch.path}  ${ch.rule}: ${ch.detail}`)
    if (written !== null) lines.push(`  written to ${written}`)
    io.stdout.write(`${lines.join('\n')}\n`)
  }
  return v.check && r.changes.length > 0 ? c.EXIT.CHANGES : c.EXIT.OK
}

module.exports = { runRequest, IMAGE_FLAGS }
