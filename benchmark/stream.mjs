// npm run bench (after bench.mjs): ResponseStreamCleaner's per-delta overhead (20-byte deltas,
// JS call included) and its total time against the reply's length (linear: the time per byte
// must stay flat from 10 KB to 1 MB).
import { createRequire } from 'node:module'
import os from 'node:os'

const require = createRequire(import.meta.url)
const { ResponseStreamCleaner, cleanResponse } = require('../index.js')

const PROSE = 'The quick brown fox — 北京 and 東京 — jumps over the lazy dog; a < b & c, [x] (y) {z}. '
const UNIT = '<think>plan the call, compare a < b</think>Let me check that for you.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "北京 <&>", "days": 3}}\n</tool_call>\nIt is sunny. ' + PROSE

function reply(unit, bytes) {
  let s = ''
  while (Buffer.byteLength(s) < bytes) s += unit
  return s
}

function deltas(text, size) {
  const out = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function run(pieces) {
  const s = new ResponseStreamCleaner()
  let n = 0
  for (const p of pieces) n += s.push(p).content.length
  return n + s.finish().content.length
}

/** Best of `runs` timings of `fn`, in ms (a shared 2-core VM is noisy: the minimum is the signal). */
function best(fn, runs) {
  fn()
  let min = Infinity
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    fn()
    min = Math.min(min, Number(process.hrtime.bigint() - t) / 1e6)
  }
  return min
}

const cpu = os.cpus()[0]
console.log(`\nResponseStreamCleaner — ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, Node ${process.version}`)
console.log('\nPer-delta overhead, 20-character deltas, 200 KB reply (push() JS call included, best of 7):')
console.log('| reply | deltas | µs per push | MB/s |')
console.log('| --- | --- | --- | --- |')
for (const [name, unit] of [['no markers', PROSE], ['calls + reasoning', UNIT]]) {
  const text = reply(unit, 200_000)
  const pieces = deltas(text, 20)
  const ms = best(() => run(pieces), 7)
  console.log(`| ${name} | ${pieces.length} | ${((ms * 1000) / pieces.length).toFixed(2)} | ${(Buffer.byteLength(text) / 1e3 / ms).toFixed(0)} |`)
}

console.log('\nTotal time against reply length (20-character deltas, calls + reasoning; best of 5):')
console.log('| reply | streamed ms | ns per byte | cleanResponse(whole) ms |')
console.log('| --- | --- | --- | --- |')
for (const kb of [10, 100, 1000]) {
  const text = reply(UNIT, kb * 1000)
  const pieces = deltas(text, 20)
  const ms = best(() => run(pieces), 5)
  const whole = best(() => cleanResponse(text), 5)
  console.log(`| ${kb >= 1000 ? kb / 1000 + ' MB' : kb + ' KB'} | ${ms.toFixed(2)} | ${((ms * 1e6) / Buffer.byteLength(text)).toFixed(0)} | ${whole.toFixed(2)} |`)
}
