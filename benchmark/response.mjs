// Response benchmarks (npm run bench runs this after the transcript table; or run it alone):
// (a) a reply without markers: whole-call throughput of cleanResponse and the scrubbers through
//     Node (string into Rust, scan, result back), which bounds the Rust scan rate from below;
//     the Rust-only rate is `cargo run --release --example scan_rate`.
// (b) 50 KB replies with markers, one per tool-call family: cleanResponse against a regex-chain
//     JS baseline of the same cleaning (benchmark/response-baseline.mjs), after checking both
//     give the same calls and text; interleaved CPU-time rounds (the machine is shared).
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'
import os from 'node:os'
import { jsCleanResponse } from './response-baseline.mjs'
import { sideBySide } from './reply-vs-openclaw.mjs'
import { CALLS, denseReply } from './call-dense.mjs'

const require = createRequire(import.meta.url)
// TH_PACKAGE: another build of this package to time (an earlier commit's, for before/after).
const th = require(process.env.TH_PACKAGE ?? '../index.js')
// The scrubbers' README figures are OpenClaw 2026.3.23 mode: pinned (the package default is 2026.9.6).
th.setOpenClawVersion('2026.3.23')

/** Best time of `rounds` rounds, each running `fn` for at least `minMs`: µs per call. */
function best(fn, rounds = 5, minMs = 200) {
  for (let i = 0; i < 3; i++) fn()
  let bestUs = Infinity
  for (let r = 0; r < rounds; r++) {
    let n = 0
    const start = process.hrtime.bigint()
    let elapsed = 0
    while (elapsed < minMs * 1e6 || n < 3) {
      fn()
      n++
      elapsed = Number(process.hrtime.bigint() - start)
    }
    bestUs = Math.min(bestUs, elapsed / n / 1000)
  }
  return bestUs
}

const cpu = os.cpus()[0]
console.log(`\nmachine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)

// ---- (a) no markers ----
// Two replies of each size: pure ASCII (a V8 one-byte string) and with a few CJK/accented
// characters (a two-byte string, what most non-English replies are).
const mixedUnit = 'All quiet on the reply front; nothing to clean here, only words, 数字 and ü. '
const asciiUnit = 'All quiet on the reply front; nothing to clean here, only plain words here. '
const mb = (u) => u.repeat(Math.ceil(10_000_000 / Buffer.byteLength(u)))
const kb = (u) => u.repeat(Math.ceil(50_000 / Buffer.byteLength(u)))
const replies = { ascii10: mb(asciiUnit), mixed10: mb(mixedUnit), ascii50: kb(asciiUnit), mixed50: kb(mixedUnit) }
const bytes = Object.fromEntries(Object.entries(replies).map(([k, v]) => [k, Buffer.byteLength(v)]))
console.log(`\n(a) reply without markers, whole JS call (string in, scan, result out); MB/s of UTF-8 bytes`)
console.log('| function | 10 MB ASCII MB/s | 10 MB mixed MB/s | 50 KB mixed µs | JS baseline / this, 50 KB |')
console.log('| --- | --- | --- | --- | --- |')
const noMarker = {
  'regex-chain JS baseline': (t) => jsCleanResponse(t),
  cleanResponse: (t) => th.cleanResponse(t),
  stripMinimaxToolCallXml: (t) => th.stripMinimaxToolCallXml(t),
  stripModelSpecialTokens: (t) => th.stripModelSpecialTokens(t),
  stripDowngradedToolCallText: (t) => th.stripDowngradedToolCallText(t),
  stripThinkingTagsFromText: (t) => th.stripThinkingTagsFromText(t),
  sanitizeToolCall: (t) => th.sanitizeToolCall('minimax/MiniMax-M2.1', t),
  sanitizeThinkingTags: (t) => th.sanitizeThinkingTags(t),
}
let baseline50
for (const [name, fn] of Object.entries(noMarker)) {
  const a10 = best(() => fn(replies.ascii10), 3, 300)
  const m10 = best(() => fn(replies.mixed10), 3, 300)
  const m50 = best(() => fn(replies.mixed50))
  baseline50 ??= m50
  console.log(`| ${name} | ${(bytes.ascii10 / a10).toFixed(0)} | ${(bytes.mixed10 / m10).toFixed(0)} | ${m50.toFixed(1)} | ${(baseline50 / m50).toFixed(1)}× |`)
}

// ---- (b) 50 KB with markers ----
const norm = (s) => s.replace(/\s+/g, ' ').trim()
const calls = (r) => r.toolCalls.map((c) => [c.function ? c.function.name : c.name, JSON.parse(c.function ? c.function.arguments : c.arguments)])

console.log('\n(b) 50 KB reply with a think block and tool calls every 4 paragraphs: cleanResponse vs the regex-chain JS baseline, CPU µs per call (median of 11 interleaved rounds), JS / ours (median, range)')
console.log('| format | bytes | calls | cleanResponse µs | JS baseline µs | JS / cleanResponse | range |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const [format, call] of Object.entries(CALLS)) {
  const t = denseReply(call)
  const ours = th.cleanResponse(t)
  const js = jsCleanResponse(t)
  assert.equal(ours.problems.length, 0, `${format}: ${ours.problems}`)
  assert.deepEqual(calls(ours), calls(js), `${format}: same calls`)
  assert.equal(norm(ours.content), norm(js.content), `${format}: same content`)
  assert.equal(ours.reasoning, js.reasoning, `${format}: same reasoning`)
  // Interleaved CPU-time rounds (see reply-vs-openclaw.mjs): on a shared machine a wall-time
  // best-of-N moved this ratio by 2× between runs.
  const r = sideBySide(() => th.cleanResponse(t), () => jsCleanResponse(t), 11)
  const med = r.ratios[r.ratios.length >> 1]
  console.log(`| ${format} | ${Buffer.byteLength(t)} | ${ours.toolCalls.length} | ${r.ours.toFixed(1)} | ${r.theirs.toFixed(1)} | ${med.toFixed(2)}× | ${r.ratios[0].toFixed(2)}–${r.ratios[r.ratios.length - 1].toFixed(2)}× |`)
}

// (c) The scrubbers, sanitizeToolCall and cleanResponse side by side with OpenClaw's own scrubbers
// (benchmark/reply-vs-openclaw.mjs), then (d) what the code-span and fence tracking costs
// (benchmark/code-spans.mjs).
await (await import('./reply-vs-openclaw.mjs')).run()
await (await import('./code-spans.mjs')).run()
