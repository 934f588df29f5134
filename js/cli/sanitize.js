'use strict'
// `transcript-hygiene sanitize`: what sanitizeSessionHistory changes in a stored transcript.

const fs = require('node:fs')
const path = require('node:path')
const th = require('../../index.js')
const c = require('./common.js')
const { readTranscript, writeTranscript, origin } = require('./transcript-file.js')
const { isClineHistory } = require('./history-file.js')
const { runRequest, IMAGE_FLAGS } = require('./sanitize-request.js')
const { OPENCLAW_VERSION } = require('../options.js')

const HELP = `Usage: ${c.PROG} sanitize <session.jsonl | messages.json | directory> [options]

Shows what the transcript hygiene pass (sanitizeSessionHistory, OpenClaw's replay-time repair)
changes in a stored conversation before it is sent to a model: one line per change with the
message, the rule and the reason, then a summary.

Input
  session file   a .jsonl session (first line {"type":"session",...}): the messages of its
                 current branch, as the agent builds its context (a compaction's summary and
                 kept messages, branch summaries and custom messages included)
  messages file  a JSON array of messages, an object with a "messages" array, or a .jsonl
                 file with one message per line
  directory      every *.jsonl file in it (with -r, in its subdirectories too)

Target model (default: the model of the transcript's last assistant message or model change;
if any of the three is given, only the given ones are used)
  --provider P          provider id: anthropic, openai, google, mistral, openrouter, ...
  --model-api A         anthropic-messages, openai-completions, openai-responses,
                        google-generative-ai, ...
  --model-id M          claude-sonnet-4-5, gpt-5, gemini-2.5-pro, ...
  --policy-json JSON    override fields of the resolved policy: '{"dropThinkingBlocks":true}'
  --allowed-tools LIST  comma-separated tool names; calls to other tools are dropped
  --openclaw-version V  the OpenClaw release whose pass runs: 2026.9.6 (the default, the
                        current release) or 2026.3.23 (the release that wrote .jsonl sessions)

Request bodies (a gateway's captured request, one JSON file)
  --protocol P          the file is a request body in wire protocol P (openai-chat,
                        anthropic, openai-responses, gemini): shows
                        what sanitizeRequest repairs for the target; --write OUT writes the
                        repaired body (key order and indentation of the input kept)
  --max-dimension-px N  with --protocol: the image limits (maxDimensionPx, maxBytes,
  --max-bytes N         maxDecodeBytes of sanitizeRequest); each one not given is the
  --max-decode-bytes N  protocol's default (Anthropic 8000 px, 2000 px past 20 images, …)

Output
  --json                one JSON object on stdout: {files: [...], summary}
  --write OUT           write the sanitized transcript to OUT in the input's format (for a
                        directory, OUT is a directory that receives every file); a session
                        keeps its untouched entries byte for byte
  --check               write nothing; exit 1 when the pass would change something
  -r, --recursive       read the subdirectories of a directory too
  -h, --help            show this help

Exit codes: 0 done, 1 changes found with --check, 2 bad input.

Example:
  ${c.PROG} sanitize ~/.openclaw/agents/main/sessions/abc.jsonl \\
      --provider google --model-api google-generative-ai --model-id gemini-2.5-pro
`

const OPTIONS = {
  provider: { type: 'string' },
  'model-api': { type: 'string' },
  'model-id': { type: 'string' },
  'policy-json': { type: 'string' },
  'allowed-tools': { type: 'string' },
  'openclaw-version': { type: 'string' },
  protocol: { type: 'string' },
  'max-dimension-px': { type: 'string' },
  'max-bytes': { type: 'string' },
  'max-decode-bytes': { type: 'string' },
  json: { type: 'boolean' },
  write: { type: 'string' },
  check: { type: 'boolean' },
  recursive: { type: 'boolean', short: 'r' },
}

async function run(argv, io) {
  const p = c.parse('sanitize', argv, OPTIONS, { min: 1, max: 1 })
  if (p === null) {
    io.stdout.write(HELP)
    return c.EXIT.OK
  }
  const v = p.values
  const version = v['openclaw-version']
  if (version !== undefined) {
    try {
      OPENCLAW_VERSION(version, '--openclaw-version')
    } catch (err) {
      throw new c.CliError(err.message)
    }
    if (v.protocol !== undefined) throw new c.CliError(`--openclaw-version does not apply to --protocol: the request repair runs 2026.3.23's rules`)
  }
  if (v.protocol !== undefined) return runRequest(p.positionals[0], v, io)
  for (const flag of IMAGE_FLAGS) {
    if (v[flag] !== undefined) throw new c.CliError(`--${flag} applies to --protocol only (a transcript's image limits are its target's)`)
  }
  if (v.check && v.write !== undefined) throw new c.CliError(`${c.PROG} sanitize: --check and --write cannot be used together`)
  const opts = {
    flags: { provider: v.provider, modelApi: v['model-api'], modelId: v['model-id'] },
    policy: v['policy-json'] === undefined ? undefined : policyOverride(v['policy-json']),
    allowedToolNames: v['allowed-tools'] === undefined ? undefined : v['allowed-tools'].split(',').map((s) => s.trim()).filter((s) => s !== ''),
    openclawVersion: version,
  }

  const input = p.positionals[0]
  const dir = c.isDirectory(input)
  const files = dir ? c.listFiles(input, c.isJsonl, v.recursive === true) : [input]
  if (v.write !== undefined) checkOut(input, v.write, dir)

  const bar = c.progress(io.stderr, files.length)
  const results = []
  for (let i = 0; i < files.length; i++) {
    const file = files[i]
    bar.tick(i, dir ? path.relative(input, file) : file)
    const out = v.write === undefined ? undefined : dir ? path.join(v.write, path.relative(input, file)) : v.write
    try {
      results.push(sanitizeFile(file, opts, out))
    } catch (err) {
      if (!(err instanceof c.CliError) || !dir) throw err
      results.push({ file, error: err.message })
      c.say(io.stderr, err.message)
    }
    const r = results[results.length - 1]
    if (r.notes) for (const n of r.notes) c.say(io.stderr, `${file}: ${n}`)
    if (r.skippedLines && r.skippedLines.length > 0) {
      c.say(io.stderr, `${file}: ${lineList(r.skippedLines)} not valid JSON, left out (${c.PROG} repair drops such lines)`)
    }
  }
  bar.done()

  const summary = summarise(results)
  if (v.json) io.stdout.write(`${JSON.stringify({ files: results.map(jsonResult), summary }, null, 2)}\n`)
  else io.stdout.write(human(results, summary))
  if (summary.errors > 0) return c.EXIT.BAD_INPUT
  return v.check && summary.changes > 0 ? c.EXIT.CHANGES : c.EXIT.OK
}

function policyOverride(text) {
  const value = c.parseJson(text, '--policy-json')
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new c.CliError('--policy-json: expected a JSON object of policy fields')
  return value
}

/** The output path must not be the input, and a directory input needs a directory output. */
function checkOut(input, out, dir) {
  const same = (a, b) => path.resolve(a) === path.resolve(b)
  if (same(input, out)) throw new c.CliError(`${c.PROG} sanitize: --write ${out} would overwrite the input; write to another path`)
  if (dir) {
    const rel = path.relative(path.resolve(input), path.resolve(out))
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) throw new c.CliError(`${c.PROG} sanitize: --write ${out} is inside the input directory`)
    if (fs.existsSync(out) && !c.isDirectory(out)) throw new c.CliError(`${out}: not a directory (a directory input is written to a directory)`)
  } else if (c.isDirectory(out)) throw new c.CliError(`${out}: is a directory (give the output file's path)`)
}

/** provider / modelApi / modelId: from the flags when any is given, else from the transcript. */
function target(t, flags) {
  if (flags.provider !== undefined || flags.modelApi !== undefined || flags.modelId !== undefined) return { ...flags, from: 'flags' }
  const found = { provider: undefined, modelApi: undefined, modelId: undefined, from: 'transcript' }
  const str = (s) => (typeof s === 'string' && s !== '' ? s : undefined)
  const seeAssistant = (m) => {
    if (m === null || typeof m !== 'object' || m.role !== 'assistant') return
    if (str(m.provider) === undefined && str(m.model) === undefined && str(m.api) === undefined) return
    found.provider = str(m.provider)
    found.modelId = str(m.model)
    found.modelApi = str(m.api)
  }
  if (t.format === 'session') {
    for (const x of t.branch) {
      const e = x.entry
      if (e.type === 'model_change') {
        found.provider = str(e.provider)
        found.modelId = str(e.modelId)
        found.modelApi = undefined
      } else if (e.type === 'message') seeAssistant(e.message)
    }
  } else for (const m of t.messages) seeAssistant(m)
  return found
}

/** Passes over what is written beyond the first (each one changes less; two settle every known case). */
const MAX_ROUNDS = 3

function sanitizeFile(file, opts, out) {
  const text = c.readText(file)
  const t = readTranscript(text, file)
  if (t.format === 'json' && isClineHistory(t.messages, file)) {
    throw new c.CliError(`${file}: a Cline / Roo / Kilo history (Anthropic tool_use / tool_result blocks), not pi / OpenClaw messages: sanitize does not apply; ${c.PROG} detect and migrate read it`)
  }
  const to = target(t, opts.flags)
  if (to.provider === undefined && to.modelApi === undefined && to.modelId === undefined) {
    throw new c.CliError(`${file}: names no model; give --provider, --model-api and --model-id`)
  }
  const pass = (messages) => {
    try {
      return th.sanitizeSessionHistory({
        messages,
        provider: to.provider,
        modelApi: to.modelApi,
        modelId: to.modelId,
        policy: opts.policy,
        allowedToolNames: opts.allowedToolNames,
        openclawVersion: opts.openclawVersion,
        // Read-only: the pass sees the session's custom entries but records none; the current
        // branch is where 2026.9.6 looks for a model switch.
        sessionManager: t.format === 'session' ? { getEntries: () => t.entries.map((x) => x.entry), getBranch: () => t.branch.map((x) => x.entry) } : undefined,
        report: true,
      })
    } catch (err) {
      throw new c.CliError(`${file}: ${c.oneLine(err)}`)
    }
  }
  const r = pass(t.messages)
  const changes = r.changes.map((ch) => {
    const m = /^messages\[(\d+)\]/.exec(ch.path)
    const index = m === null ? null : Number(m[1])
    const where = index === null ? {} : origin(t, t.messages[index])
    return { rule: ch.rule, path: ch.path, detail: ch.detail, message: index, ...where }
  })
  const result = {
    file,
    format: t.format,
    provider: to.provider ?? null,
    modelApi: to.modelApi ?? null,
    modelId: to.modelId ?? null,
    targetFrom: to.from,
    messages: t.messages.length,
    sanitizedMessages: r.messages.length,
    changes,
    skippedLines: t.skipped,
    written: null,
    notes: [],
  }
  if (out !== undefined) {
    // One pass is not always a fixed point (as in OpenClaw: an aborted turn holding only thinking
    // blocks the target drops keeps an empty text block, which the next pass drops with the
    // turn). What is written is passed again until nothing changes, so that sanitizing it again
    // for the same model changes nothing; the report stays the first pass's.
    let written = r.messages
    const more = []
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const again = pass(written)
      if (again.changes.length === 0) break
      more.push(...again.changes)
      written = again.messages
    }
    if (more.length > 0) {
      const rules = [...new Set(more.map((ch) => ch.rule))].join(', ')
      result.notes.push(`a second pass changes what the first one left (${more.length} more: ${rules}); written after it, so that sanitizing ${out} again changes nothing`)
      result.sanitizedMessages = written.length
    }
    const data = writeTranscript(t, written, result.notes)
    try {
      fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true })
    } catch (err) {
      throw new c.CliError(`${path.dirname(out)}: ${c.oneLine(err)}`)
    }
    c.writeFile(out, data, { mode: c.fileMode(file) })
    result.written = out
  }
  return result
}

function jsonResult(r) {
  if (r.error !== undefined) return { file: r.file, error: r.error }
  const { notes, ...rest } = r
  return notes.length > 0 ? { ...rest, notes } : rest
}

function summarise(results) {
  const s = { files: results.length, changed: 0, errors: 0, changes: 0, byRule: {} }
  for (const r of results) {
    if (r.error !== undefined) {
      s.errors++
      continue
    }
    if (r.changes.length > 0) s.changed++
    s.changes += r.changes.length
    for (const ch of r.changes) s.byRule[ch.rule] = (s.byRule[ch.rule] || 0) + 1
  }
  return s
}

function lineList(nums) {
  const shown = nums.slice(0, 8).join(', ')
  return `${nums.length === 1 ? 'line' : 'lines'} ${shown}${nums.length > 8 ? `, … (${nums.length})` : ''}`
}

function human(results, summary) {
  const out = []
  const many = results.length > 1
  for (const r of results) {
    if (r.error !== undefined) continue
    if (many && r.changes.length === 0 && r.written === null) continue
    const model = [r.provider, r.modelApi, r.modelId].map((x) => x ?? '?').join(' / ')
    const from = r.targetFrom === 'transcript' ? ', from the transcript' : ''
    const head = r.changes.length === 0 ? 'no changes' : c.plural(r.changes.length, 'change')
    out.push(`${r.file}: ${head} in ${c.plural(r.messages, 'message')} (${model}${from})`)
    // By message (new messages last), each message's changes in the order the rules ran.
    const byMessage = r.changes.slice().sort((a, b) => (a.message ?? Infinity) - (b.message ?? Infinity))
    for (const ch of byMessage) {
      const where = ch.message === null ? 'new message' : `message ${ch.message}${ch.line !== undefined ? ` (line ${ch.line})` : ''}`
      out.push(`  ${where}  ${ch.rule}: ${ch.detail}`)
    }
    if (r.written !== null) out.push(`  written to ${r.written} (${c.plural(r.sanitizedMessages, 'message')})`)
  }
  const rules = Object.entries(summary.byRule)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([rule, n]) => `${rule} ${n}`)
  let line = many ? `${c.plural(summary.files, 'file')}, ${summary.changed} with changes` : ''
  if (summary.errors > 0) line += `, ${summary.errors} unreadable`
  if (summary.changes > 0) line += `${line === '' ? '' : '; '}${c.plural(summary.changes, 'change')}: ${rules.join(', ')}`
  else if (!many) line = 'nothing to change'
  out.push(line)
  return `${out.join('\n')}\n`
}

module.exports = { name: 'sanitize', summary: 'show (or write) what the hygiene pass changes in a transcript', help: HELP, run }
