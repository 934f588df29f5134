'use strict'
// `transcript-hygiene sanitize --protocol P body.json`: what sanitizeRequest changes in a request
// body held in a file (a gateway's captured request), and, with --write, the repaired body.

const th = require('../../index.js')
const c = require('./common.js')

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

module.exports = { runRequest }
