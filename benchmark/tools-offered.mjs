// What offering `tools` costs cleanResponse: with tools given, every `{` in visible text is also
// checked for an offered tool name written right before it (`exec{"command": …}`) and for a bare
// JSON call naming an offered tool. Same reply, same process, interleaved CPU-time rounds
// (sideBySide of reply-vs-openclaw.mjs): the ratio is µs with tools / µs without.
//   node benchmark/tools-offered.mjs [rounds]
import { createRequire } from 'node:module'
import os from 'node:os'
import { REPLIES, sideBySide } from './reply-vs-openclaw.mjs'

const require = createRequire(import.meta.url)
const th = require(process.env.TH_PACKAGE ?? '../index.js')
const ROUNDS = Number(process.argv[2] ?? 15)

// Twenty tools, as an agent offers them (the names the replies call are among them).
const names = ['read_file', 'write_file', 'edit_file', 'list_dir', 'search_web', 'fetch_url', 'exec', 'bash',
  'grep', 'glob', 'todo_write', 'ask_user', 'get_weather', 'send_message', 'create_issue', 'run_tests',
  'git_diff', 'git_commit', 'browser_open', 'memory_save']
const tools = names.map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { path: { type: 'string' }, query: { type: 'string' }, limit: { type: 'integer' } }, required: [] },
  },
}))

// Replies dense in `{`: a coding answer with JSON and JS objects in fenced blocks and in prose,
// ASCII and half Chinese, and the call-dense Hermes reply (a JSON call every 4 paragraphs).
function fill(unit) {
  let s = ''
  while (Buffer.byteLength(s) < 50_000) s += unit
  return s
}
const codeUnit = 'Set the options like this: `{"retries": 3}` and then\n\n```js\nconst cfg = { retries: 3, backoff: { base: 100, max: 2000 } }\nrun(cfg, { dryRun: false })\n```\n\n'
const zhCodeUnit = '把配置写成这样：`{"retries": 3}`，然后运行：\n\n```json\n{"name": "构建", "steps": [{"run": "npm test"}, {"run": "npm run build"}]}\n```\n\n'
const para = (i) => `Paragraph ${i}: the model explains what it is doing, with some detail about the files. 中文说明也在这里。\n\n`
const hermes = (i) => `<tool_call>\n{"name": "read_file", "arguments": {"path": "src/file_${i}.rs", "limit": ${i}}}\n</tool_call>\n`
function dense() {
  let s = ''
  for (let i = 0; Buffer.byteLength(s) < 50_000; i++) s += para(i) + (i % 4 === 3 ? hermes(i) : '')
  return s
}
const replies = {
  ...REPLIES,
  'ASCII, JSON/JS objects in code': fill(codeUnit),
  'half Chinese, JSON in code': fill(zhCodeUnit),
  'call-dense Hermes': dense(),
}

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ')
console.log(`cleanResponse with ${tools.length} tools offered vs without: CPU µs per call (median of ${ROUNDS} interleaved rounds); load average ${load()}`)
console.log('| reply | without µs | with tools µs | with / without (median) | range |')
console.log('| --- | --- | --- | --- | --- |')
for (const [label, text] of Object.entries(replies)) {
  const a = th.cleanResponse(text)
  const b = th.cleanResponse(text, { tools })
  if (a.toolCalls.length !== b.toolCalls.length) throw new Error(`${label}: ${a.toolCalls.length} vs ${b.toolCalls.length} calls`)
  const r = sideBySide(() => th.cleanResponse(text, { tools }), () => th.cleanResponse(text), ROUNDS)
  // sideBySide's ratio is without / with; report with / without.
  const inv = r.ratios.map((x) => 1 / x).sort((p, q) => p - q)
  console.log(`| ${label} | ${r.theirs.toFixed(1)} | ${r.ours.toFixed(1)} | ${inv[inv.length >> 1].toFixed(2)}× | ${inv[0].toFixed(2)}–${inv[inv.length - 1].toFixed(2)}× |`)
}
console.log(`load average after: ${load()}`)
