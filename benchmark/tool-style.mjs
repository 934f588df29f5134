// Tool-call style (issue #4): recovering a 5,000-message history with 2,000 flattened calls
// (target: under 50 ms), plus detection and the reverse conversion on the same history.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const th = require('../index.js')

/** A Kilo-style history: 2,000 call/result pairs flattened by a resume, 1,000 plain turns. */
export function makeFlattenedHistory(calls = 2000, plain = 1000) {
  const file = Array.from({ length: 40 }, (_, i) => `${i + 1} | export function f${i}(a: number): number { return a * ${i} }`).join('\n')
  const env = { type: 'text', text: '<environment_details>\n# VSCode Visible Files\nsrc/server.ts\n\n# Current Time\n2025-11-01T10:00:00Z\n</environment_details>' }
  const native = []
  let p = 0
  for (let i = 0; i < calls; i++) {
    if (p < plain && i % 2 === 0) {
      native.push({ role: 'user', content: [{ type: 'text', text: `Please continue with step ${i}.` }, env] })
      native.push({ role: 'assistant', content: [{ type: 'text', text: `Working on step ${i}; nothing to run yet.` }] })
      p += 2
    }
    const id = `toolu_${i}`
    const kind = i % 3
    const input =
      kind === 0
        ? { path: `src/f${i}.ts`, content: `${file}\n`, line_count: 40 }
        : kind === 1
          ? { command: `npm test -- --grep case${i}`, cwd: null }
          : { path: `src/dir${i}`, recursive: true }
    const name = ['write_to_file', 'execute_command', 'list_files'][kind]
    native.push({ role: 'assistant', content: [{ type: 'text', text: `I'll use ${name} for step ${i}.` }, { type: 'tool_use', id, name, input }] })
    const out = kind === 1 ? `Command executed in terminal  within working directory '/w'. Exit code: 0\nOutput:\n${file}` : `<file_write_result>\n<path>src/f${i}.ts</path>\n<operation>modified</operation>\n</file_write_result>`
    native.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: `[${name} for 'src/f${i}.ts'] Result:` }, { type: 'text', text: out }] }, env] })
  }
  return { native, flat: th.convertToolStyle(native, 'xml') }
}

function best(fn, runs = 15) {
  fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  times.sort((a, b) => a - b)
  return { best: times[0], median: times[times.length >> 1] }
}

const { native, flat } = makeFlattenedHistory()
const chars = flat.reduce((n, m) => n + JSON.stringify(m).length, 0)
const tools = [
  { name: 'write_to_file', input_schema: { properties: { path: { type: 'string' }, content: { type: 'string' }, line_count: { type: 'integer' } } } },
  { name: 'execute_command', input_schema: { properties: { command: { type: 'string' }, cwd: { type: ['string', 'null'] } } } },
  { name: 'list_files', input_schema: { properties: { path: { type: 'string' }, recursive: { type: 'boolean' } } } },
]
const check = th.recoverToolBlocks(flat, { tools })
if (check.recovered.length !== 2000) throw new Error(`expected 2000 recovered calls, got ${check.recovered.length}`)
console.log(`\ntool style: ${flat.length} messages, ${check.recovered.length} flattened calls, ${(chars / 1e6).toFixed(1)} MB as JSON`)
console.log('| operation | best ms | median ms |')
console.log('| --- | --- | --- |')
for (const [name, fn] of [
  ['recoverToolBlocks (with tool schemas)', () => th.recoverToolBlocks(flat, { tools })],
  ['recoverToolBlocks (no schemas)', () => th.recoverToolBlocks(flat)],
  ['recoverToolBlocks on the native history (nothing to do)', () => th.recoverToolBlocks(native)],
  ['detectToolStyle', () => th.detectToolStyle(flat)],
  ["convertToolStyle(native, 'xml')", () => th.convertToolStyle(native, 'xml')],
  ['toOpenAiMessages(native)', () => th.toOpenAiMessages(native)],
]) {
  const t = best(fn)
  console.log(`| ${name} | ${t.best.toFixed(1)} | ${t.median.toFixed(1)} |`)
}
