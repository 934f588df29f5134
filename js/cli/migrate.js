'use strict'
// `transcript-hygiene migrate`: recoverToolBlocks on history files, rewritten with a backup.

const th = require('../../index.js')
const c = require('./common.js')
const { readHistory, isHistoryFile } = require('./history-file.js')

const HELP = `Usage: ${c.PROG} migrate <api_conversation_history.json | directory>... [options]

Rebuilds the native tool_use / tool_result blocks of a Cline / Roo / Kilo history whose calls and
results a resume flattened to XML text (recoverToolBlocks): pairs matched by position, ids
derived from the history, values typed from the tools' schemas when --tools gives them. Values
that cannot be recovered exactly (objects written as [object Object], dropped images, cut-off
calls) are listed, never guessed.

The original is kept as <file>.bak-<pid>-<ms> (a new name each run, so a second run never
overwrites the first backup), and the file is replaced atomically, in its own JSON layout
(compact or indented). A history with nothing to rebuild is not touched.

  --tools FILE     a JSON array of tool definitions (Anthropic {name, input_schema} or OpenAI
                   {type: "function", function: {name, parameters}})
  --xml-protocol   also rebuild calls written inside prose by an agent that used the XML
                   protocol on purpose (read as that agent's parser read them)
  --check          write nothing; exit 1 when a history would change
  --json           one JSON object on stdout: {files: [...], summary}
  -h, --help       show this help

A directory stands for every api_conversation_history.json below it.
Exit codes: 0 done, 1 a history would change with --check, 2 bad input.

Example:
  ${c.PROG} migrate --check ~/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/
`

const OPTIONS = {
  tools: { type: 'string' },
  'xml-protocol': { type: 'boolean' },
  check: { type: 'boolean' },
  json: { type: 'boolean' },
}

async function run(argv, io) {
  const p = c.parse('migrate', argv, OPTIONS, { min: 1 })
  if (p === null) {
    io.stdout.write(HELP)
    return c.EXIT.OK
  }
  const v = p.values
  const options = {}
  if (v.tools !== undefined) {
    const tools = c.readJsonFile(v.tools)
    if (!Array.isArray(tools)) throw new c.CliError(`${v.tools}: expected a JSON array of tool definitions`)
    options.tools = tools
  }
  if (v['xml-protocol']) options.xmlProtocol = true

  const targets = c.expandPaths(p.positionals, { wanted: isHistoryFile, recursive: true })
  const many = targets.length > 1
  const bar = c.progress(io.stderr, targets.length)
  const results = []
  for (let i = 0; i < targets.length; i++) {
    const { file } = targets[i]
    bar.tick(i, file)
    try {
      results.push(migrateFile(file, options, v.check === true))
    } catch (err) {
      if (!(err instanceof c.CliError) || !many) throw err
      results.push({ file, error: err.message })
      c.say(io.stderr, err.message)
    }
  }
  bar.done()

  const summary = { files: results.length, changed: 0, errors: 0, recovered: 0, unrecoverable: 0 }
  for (const r of results) {
    if (r.error !== undefined) summary.errors++
    else {
      if (r.changed) summary.changed++
      summary.recovered += r.recovered.length
      summary.unrecoverable += r.unrecoverable.length
    }
  }
  if (v.json) io.stdout.write(`${JSON.stringify({ files: results, summary }, null, 2)}\n`)
  else io.stdout.write(human(results, summary, v.check === true))
  if (summary.errors > 0) return c.EXIT.BAD_INPUT
  return v.check && summary.changed > 0 ? c.EXIT.CHANGES : c.EXIT.OK
}

function migrateFile(file, options, check) {
  const { bytes, text, history } = readHistory(file)
  let r
  try {
    r = th.recoverToolBlocks(history, options)
  } catch (err) {
    throw new c.CliError(`${file}: ${c.oneLine(err)}`)
  }
  const changed = r.history !== history
  const result = { file, changed, written: false, recovered: r.recovered, unrecoverable: r.unrecoverable, warnings: r.warnings }
  if (changed && !check) {
    const w = c.writeFile(file, c.stringifyLike(r.history, text), { expect: bytes, backup: true })
    result.written = true
    result.backupPath = w.backupPath
  }
  return result
}

function human(results, summary, check) {
  const out = []
  for (const r of results) {
    if (r.error !== undefined) continue
    if (!r.changed) {
      if (results.length === 1) out.push(`${r.file}: nothing to migrate`)
      continue
    }
    const bySource = {}
    for (const x of r.recovered) bySource[x.source] = (bySource[x.source] || 0) + 1
    const sources = Object.entries(bySource).map(([s, n]) => `${n} ${s}`)
    const what = r.recovered.length > 0 ? `${check ? 'would rebuild' : 'rebuilt'} ${c.plural(r.recovered.length, 'tool call')} (${sources.join(', ')})` : check ? 'would merge duplicate tool results' : 'merged duplicate tool results'
    out.push(`${r.file}: ${what}${r.backupPath !== undefined ? `; backup ${r.backupPath}` : ''}`)
    for (const u of r.unrecoverable) out.push(`  unrecoverable ${u.path}: ${u.kind}: ${u.message}`)
    for (const w of r.warnings) out.push(`  warning ${w.path}: ${w.kind}: ${w.message}`)
  }
  if (results.length !== 1) {
    let line = `${c.plural(summary.files, 'history', 'histories')}: ${summary.changed} ${check ? 'to migrate' : 'migrated'}, ${c.plural(summary.recovered, 'tool call')} ${check ? 'to rebuild' : 'rebuilt'}`
    if (summary.unrecoverable > 0) line += `, ${summary.unrecoverable} unrecoverable values`
    if (summary.errors > 0) line += `, ${summary.errors} unreadable`
    out.push(line)
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`
}

module.exports = { name: 'migrate', summary: 'rebuild native tool blocks in a Cline / Roo / Kilo history, with a backup', help: HELP, run }
