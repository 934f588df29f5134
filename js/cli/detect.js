'use strict'
// `transcript-hygiene detect`: detectToolStyle on a history file.

const th = require('../../index.js')
const c = require('./common.js')
const { readHistory } = require('./history-file.js')

const HELP = `Usage: ${c.PROG} detect <history.json> [options]

Reports the tool-call style of a Cline / Roo / Kilo history (api_conversation_history.json):
  json   only native tool_use / tool_result blocks
  xml    only calls and results written as text
  mixed  both: native calls, and calls a resume flattened to XML text (run migrate)
  none   no tool calls at all
with the number of blocks of each kind that show it.

  --json          one JSON object: {file, style, counts, evidence}
  -v, --verbose   list every block that shows a style (its path and kind)
  -h, --help      show this help

Exit codes: 0 done, 2 bad input.

Example:
  ${c.PROG} detect ~/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/<id>/api_conversation_history.json
`

const OPTIONS = {
  json: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
}

async function run(argv, io) {
  const p = c.parse('detect', argv, OPTIONS, { min: 1, max: 1 })
  if (p === null) {
    io.stdout.write(HELP)
    return c.EXIT.OK
  }
  const file = p.positionals[0]
  const { history } = readHistory(file)
  let r
  try {
    r = th.detectToolStyle(history)
  } catch (err) {
    throw new c.CliError(`${file}: ${c.oneLine(err)}`)
  }
  const counts = {}
  for (const e of r.evidence) counts[e.kind] = (counts[e.kind] || 0) + 1
  if (p.values.json) {
    io.stdout.write(`${JSON.stringify({ file, style: r.style, counts, evidence: r.evidence }, null, 2)}\n`)
    return c.EXIT.OK
  }
  const parts = Object.entries(counts).map(([kind, n]) => `${kind} ${n}`)
  const hint = r.evidence.some((e) => e.kind.startsWith('flattened_')) && r.style !== 'json' ? `; ${c.PROG} migrate rebuilds the flattened ones` : ''
  io.stdout.write(`${file}: ${r.style}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}${hint}\n`)
  if (p.values.verbose) for (const e of r.evidence) io.stdout.write(`  ${e.path}  ${e.kind}\n`)
  return c.EXIT.OK
}

module.exports = { name: 'detect', summary: 'report the tool-call style of a Cline / Roo / Kilo history', help: HELP, run }
