// The call-dense replies (50 KB, a <think> block, a tool call every 4 paragraphs, one reply per
// format) that benchmark/response.mjs times against the regex-chain JS baseline, and, run on its
// own, the same rows for two builds of this package side by side in one process:
//   node benchmark/call-dense.mjs [<directory of the other build>] [rounds]
// The other build is a directory holding its index.js, binding.js, js/ and .node file (e.g. an
// earlier commit's, built). Each round times the JS chain, this build and the other build in
// turn, in batches of ~10 ms of CPU time (benchmark/reply-vs-openclaw.mjs's `sideBySide`); the
// table shows the median of each and of the per-round ratios. On a shared machine only figures
// measured in one process, interleaved, can be compared.
import { createRequire } from 'node:module'
import os from 'node:os'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const para = (i) => `Paragraph ${i}: the model explains what it is doing, with some detail about the files, the plan and the results so far. 中文说明也在这里。\n\n`

/** One call of each format, numbered `i`. */
export const CALLS = {
  hermes: (i) => `<tool_call>\n{"name": "read_file", "arguments": {"path": "src/file_${i}.rs", "limit": ${i}}}\n</tool_call>\n`,
  qwen3_coder: (i) => `<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/file_${i}.rs\n</parameter>\n<parameter=limit>\n${i}\n</parameter>\n</function>\n</tool_call>\n`,
  glm47: (i) => `<tool_call>read_file<arg_key>path</arg_key><arg_value>src/file_${i}.rs</arg_value><arg_key>limit</arg_key><arg_value>${i}</arg_value></tool_call>\n`,
  minimax_m2: (i) => `<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">src/file_${i}.rs</parameter>\n<parameter name="limit">${i}</parameter>\n</invoke>\n</minimax:tool_call>\n`,
  deepseek_v31: (i) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "src/file_${i}.rs", "limit": ${i}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n`,
  kimi_k2: (i) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:${i}<|tool_call_argument_begin|>{"path": "src/file_${i}.rs", "limit": ${i}}<|tool_call_end|><|tool_calls_section_end|>\n`,
}

/** The 50 KB call-dense reply of one format (`call` from `CALLS`). */
export function denseReply(call) {
  let s = '<think>The user wants the files read; I will call read_file for each of them.</think>\n'
  let i = 0
  while (Buffer.byteLength(s) < 50_000) {
    s += para(i)
    if (i % 4 === 3) s += call(i)
    i++
  }
  return s
}

async function main() {
  const require = createRequire(import.meta.url)
  const { jsCleanResponse } = await import('./response-baseline.mjs')
  const { sideBySide } = await import('./reply-vs-openclaw.mjs')
  const other = process.argv[2]
  const rounds = Number(process.argv[3] ?? 11)
  const th = require('../index.js')
  const old = other ? require(resolve(other, 'index.js')) : null
  const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1]
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  console.log(`other build: ${other ? resolve(other) : '—'}; CPU µs per call, medians of ${rounds} interleaved rounds\n`)
  console.log('| format | JS chain µs | other µs | this µs | JS / other | JS / this (range) | other / this |')
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  for (const [format, call] of Object.entries(CALLS)) {
    const t = denseReply(call)
    const mine = sideBySide(() => th.cleanResponse(t), () => jsCleanResponse(t), rounds)
    // ratios of this pair: the other build's time over this build's, round by round
    const vs = old ? sideBySide(() => th.cleanResponse(t), () => old.cleanResponse(t), rounds) : null
    const r = mine.ratios
    const cols = vs
      ? [vs.theirs.toFixed(1), mine.ours.toFixed(1), (mine.theirs / vs.theirs).toFixed(2), `${med(r).toFixed(2)} (${r[0].toFixed(2)}–${r[r.length - 1].toFixed(2)})`, `${med(vs.ratios).toFixed(2)}`]
      : ['—', mine.ours.toFixed(1), '—', `${med(r).toFixed(2)} (${r[0].toFixed(2)}–${r[r.length - 1].toFixed(2)})`, '—']
    console.log(`| ${format} | ${mine.theirs.toFixed(1)} | ${cols.join(' | ')} |`)
  }
  console.log(`\n(load average ${os.loadavg()[0].toFixed(2)} at the end)`)
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main()
