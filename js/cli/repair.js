'use strict'
// `transcript-hygiene repair`: repairSessionFile on session files, or a dry run of it.

const th = require('../../index.js')
const c = require('./common.js')

const HELP = `Usage: ${c.PROG} repair <session.jsonl | directory>... [options]

Drops the lines of a session file that are not valid JSON (a write torn by a crash or a full
disk), as OpenClaw does before it opens a session: the original is kept as
<file>.bak-<pid>-<ms>, the valid lines are written back byte for byte to a temporary file that
replaces the original atomically. A file with nothing to drop is not touched, and nothing is
written when the first valid line is not a {"type":"session"} header.

  --check          write nothing: list the lines that would be dropped; exit 1 when a file
                   needs repair
  --no-backup      do not keep a copy of the original
  --json           one JSON object on stdout: {files: [...], summary}
  -r, --recursive  read the subdirectories of a directory too
  -h, --help       show this help

A directory stands for every *.jsonl file in it.
Exit codes: 0 done, 1 a file needs repair with --check, 2 bad input (a missing or unreadable
file, no session header).

Example:
  ${c.PROG} repair --check ~/.openclaw/agents/main/sessions/
`

const OPTIONS = {
  check: { type: 'boolean' },
  'no-backup': { type: 'boolean' },
  json: { type: 'boolean' },
  recursive: { type: 'boolean', short: 'r' },
}

async function run(argv, io) {
  const p = c.parse('repair', argv, OPTIONS, { min: 1 })
  if (p === null) {
    io.stdout.write(HELP)
    return c.EXIT.OK
  }
  const v = p.values
  const targets = c.expandPaths(p.positionals, { recursive: v.recursive === true })
  const bar = c.progress(io.stderr, targets.length)
  const results = []
  for (let i = 0; i < targets.length; i++) {
    const { file, base } = targets[i]
    bar.tick(i, file)
    const r = th.repairSessionFile(file, { backup: v['no-backup'] !== true, dryRun: v.check === true })
    const res = { file, status: status(r), droppedLines: r.droppedLines, droppedLineNumbers: r.droppedLineNumbers || [] }
    if (r.backupPath !== undefined) res.backupPath = r.backupPath
    if (res.status === 'error') res.reason = r.reason
    res.listed = base !== null
    results.push(res)
    if (res.status === 'error') c.say(io.stderr, `${file}: ${r.reason}`)
  }
  bar.done()

  const summary = { files: results.length, repaired: 0, needsRepair: 0, ok: 0, errors: 0 }
  for (const r of results) {
    if (r.status === 'repaired') summary.repaired++
    else if (r.status === 'needs-repair') summary.needsRepair++
    else if (r.status === 'error') summary.errors++
    else summary.ok++
  }
  if (v.json) {
    const files = results.map(({ listed, ...r }) => r)
    io.stdout.write(`${JSON.stringify({ files, summary }, null, 2)}\n`)
  } else io.stdout.write(human(results, summary, v.check === true))
  if (summary.errors > 0) return c.EXIT.BAD_INPUT
  return v.check && summary.needsRepair > 0 ? c.EXIT.CHANGES : c.EXIT.OK
}

/** ok | empty | repaired | needs-repair | error */
function status(r) {
  if (r.repaired) return 'repaired'
  if (r.reason === undefined) return 'ok'
  if (r.reason === 'dry run') return 'needs-repair'
  if (r.reason === 'empty session file' && r.droppedLines === 0) return 'empty'
  return 'error'
}

function lines(nums) {
  const shown = nums.slice(0, 10).join(', ')
  return `${nums.length === 1 ? 'line' : 'lines'} ${shown}${nums.length > 10 ? ', …' : ''}`
}

function human(results, summary, check) {
  const out = []
  for (const r of results) {
    const invalid = `${c.plural(r.droppedLines, 'invalid line')} (${lines(r.droppedLineNumbers)})`
    switch (r.status) {
      case 'repaired':
        out.push(`${r.file}: dropped ${invalid}${r.backupPath !== undefined ? `; backup ${r.backupPath}` : ''}`)
        break
      case 'needs-repair':
        out.push(`${r.file}: would drop ${invalid}`)
        break
      case 'ok':
      case 'empty':
        // Files found by listing a directory are only summarised when they are fine.
        if (!r.listed) out.push(`${r.file}: ${r.status === 'ok' ? 'nothing to repair' : 'empty, nothing to repair'}`)
        break
      default:
        break
    }
  }
  if (results.length > 1) {
    const parts = [check ? `${summary.needsRepair} need repair` : `${summary.repaired} repaired`, `${summary.ok} fine`]
    if (summary.errors > 0) parts.push(`${summary.errors} not repairable`)
    out.push(`${c.plural(summary.files, 'file')}: ${parts.join(', ')}`)
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`
}

module.exports = { name: 'repair', summary: 'drop the invalid lines of session files, with a backup', help: HELP, run }
