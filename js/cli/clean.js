'use strict'
// `transcript-hygiene clean`: cleanResponse on a reply, or ResponseStreamCleaner on its chunks as
// they arrive.

const fs = require('node:fs')
const { StringDecoder } = require('node:string_decoder')
const th = require('../../index.js')
const c = require('./common.js')

const HELP = `Usage: ${c.PROG} clean [file | -] [options]

Cleans a model's reply: tool calls the model wrote as text (Hermes <tool_call>, MiniMax, GLM,
Qwen, DeepSeek, Kimi, Llama, Mistral, gpt-oss, ... 28 formats) become OpenAI tool calls, and
their markup and the reasoning (<think>...) are removed from the visible text.

The reply is read from the file, or from stdin when the file is - or absent. The visible text
goes to stdout as it is (on a terminal, a final newline is added when it has none); each tool call goes to stderr as one line
"tool call: {...}" (OpenAI's {id, type, function: {name, arguments}}), and each problem as
"problem: ...".

  --format F      the reply's format (default auto): hermes, qwen3_coder, seed_oss, glm45,
                  glm47, minimax_m1, minimax_m2, deepseek_v3, deepseek_v31, deepseek_v32,
                  kimi_k2, llama3_json, pythonic, llama4_pythonic, mistral, gpt_oss, step3,
                  hunyuan_a13b, ernie45, longcat, internlm2, phi4_mini, granite,
                  granite_20b_fc, xlam, jamba, olmo3, gigachat3, deepseek_v4, gemma4, bracket_calls,
                  command_r, minimax_m3, apertus, nemotron_v2, functionary_v31, functionary_v32,
                  minicpm5, kimi_k3, doubao, tool_json, named_tool_call,
                  attr_tool_call, functiongemma
  --model M       the model that wrote it ("provider/model-id"); picks formats read only
                  for that model (Llama JSON, pythonic, ...) and R1-style reasoning
  --tools FILE    a JSON array of tool definitions (OpenAI or Anthropic); values of the
                  XML-style formats are typed from their schemas
  --thinking T    what to do with reasoning: extract (default), strip or keep
  --stream        clean the input chunk by chunk as it arrives (ResponseStreamCleaner) and
                  print the visible text as soon as it is safe to show; the result is the
                  same as for the whole reply
  --json          print one JSON object: {content, reasoning, toolCalls, format, problems};
                  with --stream, one JSON line per chunk that gave something, then the end
  --check         print only what cleaning would take out; exit 1 when there is anything
  -h, --help      show this help

Exit codes: 0 done, 1 something to clean with --check, 2 bad input.

Example:
  curl -s ... | jq -r .choices[0].message.content | ${c.PROG} clean --model minimax/MiniMax-M2
`

const OPTIONS = {
  format: { type: 'string' },
  model: { type: 'string' },
  tools: { type: 'string' },
  thinking: { type: 'string' },
  stream: { type: 'boolean' },
  json: { type: 'boolean' },
  check: { type: 'boolean' },
}

const THINKING = new Set(['extract', 'strip', 'keep'])

async function run(argv, io) {
  const p = c.parse('clean', argv, OPTIONS, { max: 1 })
  if (p === null) {
    io.stdout.write(HELP)
    return c.EXIT.OK
  }
  const v = p.values
  const options = {}
  if (v.format !== undefined) options.format = v.format
  if (v.model !== undefined) options.model = v.model
  if (v.thinking !== undefined) {
    if (!THINKING.has(v.thinking)) throw new c.CliError(`${c.PROG} clean: --thinking must be extract, strip or keep`)
    options.thinking = v.thinking
  }
  if (v.tools !== undefined) {
    const tools = c.readJsonFile(v.tools)
    if (!Array.isArray(tools)) throw new c.CliError(`${v.tools}: expected a JSON array of tool definitions`)
    options.tools = tools
  }
  if (options.format !== undefined) {
    // The addon knows its formats: an empty reply in an unknown one is answered with a problem.
    const probe = th.cleanResponse('', { format: options.format })
    if (probe.problems.length > 0) throw new c.CliError(`${c.PROG} clean: unknown --format ${JSON.stringify(options.format)} (see ${c.PROG} clean --help)`)
  }
  const file = p.positionals[0]
  const name = file === undefined || file === '-' ? 'stdin' : file
  const fromStdin = file === undefined || file === '-'
  if (!fromStdin && c.isDirectory(file)) throw new c.CliError(`${file}: is a directory`)
  if (v.stream) return stream(fromStdin ? io.stdin : openStream(file), options, v, io, name)

  const text = fromStdin ? await c.readAll(io.stdin) : c.readText(file)
  let r
  try {
    r = th.cleanResponse(text, options)
  } catch (err) {
    throw new c.CliError(`${c.PROG} clean: ${c.oneLine(err)}`)
  }
  const changed = r.content !== text || r.toolCalls.length > 0 || r.reasoning !== ''
  if (v.check) return check(io, name, changed, r.toolCalls.length, r.reasoning !== '')
  if (v.json) io.stdout.write(`${JSON.stringify(r)}\n`)
  else {
    io.stdout.write(r.content)
    endLine(io, r.content)
    for (const call of r.toolCalls) io.stderr.write(`tool call: ${JSON.stringify(call)}\n`)
    for (const problem of r.problems) io.stderr.write(`problem: ${problem}\n`)
  }
  return c.EXIT.OK
}

/** On a terminal, a reply without a final newline gets one (so the prompt starts on its own line). */
function endLine(io, text) {
  if (io.stdout.isTTY && text !== '' && !text.endsWith('\n')) io.stdout.write('\n')
}

function openStream(file) {
  // Opened here so that a missing file is one line of bad input, not a stream error later.
  let fd
  try {
    fd = fs.openSync(file, 'r')
  } catch (err) {
    throw new c.CliError(`${file}: ${/ENOENT/.test(err.code) ? 'no such file or directory' : c.oneLine(err)}`)
  }
  return fs.createReadStream(file, { fd })
}

/** `--check`: one line saying what cleaning would do, and the exit code. */
function check(io, name, changed, calls, reasoning) {
  if (!changed) {
    io.stdout.write(`${name}: nothing to clean\n`)
    return c.EXIT.OK
  }
  const parts = []
  if (calls > 0) parts.push(c.plural(calls, 'tool call'))
  if (reasoning) parts.push('reasoning')
  io.stdout.write(`${name}: ${parts.length > 0 ? `${parts.join(' and ')} to take out` : 'markup to remove'}\n`)
  return c.EXIT.CHANGES
}

async function stream(input, options, v, io, name) {
  let cleaner
  try {
    cleaner = new th.ResponseStreamCleaner(options)
  } catch (err) {
    throw new c.CliError(`${c.PROG} clean: ${c.oneLine(err)}`)
  }
  const decoder = new StringDecoder('utf8')
  let calls = 0
  let reasoning = false
  let seen = ''
  let shown = ''
  const sameTerminal = io.stdout.isTTY === true && io.stderr.isTTY === true
  let lineStart = true
  const emit = (r, end) => {
    calls += r.toolCalls.length
    if (r.reasoning !== '') reasoning = true
    shown += r.content
    if (v.check) return
    if (v.json) {
      if (end || r.content !== '' || r.reasoning !== '' || r.toolCalls.length > 0) io.stdout.write(`${JSON.stringify(r)}\n`)
      return
    }
    if (r.content !== '') {
      io.stdout.write(r.content)
      lineStart = r.content.endsWith('\n')
    }
    // On a terminal a call's line is a line of its own, even in the middle of the text.
    if (r.toolCalls.length > 0 && sameTerminal) {
      if (!lineStart) io.stderr.write('\n')
      lineStart = true
    }
    for (const call of r.toolCalls) io.stderr.write(`tool call: ${JSON.stringify(call)}\n`)
    if (end && io.stdout.isTTY && !lineStart) io.stdout.write('\n')
    if (end) for (const problem of r.problems) io.stderr.write(`problem: ${problem}\n`)
  }
  const push = (text) => {
    if (text === '') return
    seen += text
    emit(cleaner.push(text), false)
  }
  try {
    for await (const chunk of input) push(decoder.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  } catch (err) {
    throw new c.CliError(`${c.PROG} clean: reading the input failed (${c.oneLine(err)})`)
  }
  push(decoder.end())
  emit(cleaner.finish(), true)
  if (v.check) return check(io, name, calls > 0 || reasoning || shown !== seen, calls, reasoning)
  return c.EXIT.OK
}

module.exports = { name: 'clean', summary: "clean a model's reply: tool calls written as text, reasoning", help: HELP, run }
