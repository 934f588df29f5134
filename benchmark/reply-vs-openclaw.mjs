// The reply scrubbers, sanitizeToolCall and cleanResponse side by side with OpenClaw 2026.3.23-2's
// own scrubbers (loaded in this process by benchmark/openclaw.mjs), on 50 KB replies: ASCII and
// half Chinese, plain prose and the same prose with a <think> block and one MiniMax call.
// OpenClaw's outbound chain is stripMinimaxToolCallXml → stripModelSpecialTokens →
// stripDowngradedToolCallText → stripReasoningTagsFromText; sanitizeToolCall and cleanResponse are
// compared with that chain (the work they replace).
//
// Timing: the two sides are interleaved (ours, theirs, ours, …) in batches of ~10 ms of CPU time
// each, measured with process.cpuUsage (time this process spent on a core, so a burst of other
// builds on the shared machine does not count against either side). Each round gives one ratio
// (their batch / our adjacent batch); the table shows the median ratio and the range over rounds.
//   node benchmark/reply-vs-openclaw.mjs [rounds]
// With TH_OTHER=<dir> (another build of this package: its index.js, binding.js, js/ and .node
// file, e.g. main's), each row also times that build against this one, interleaved the same way,
// and shows other build / this build. ONLY=<text> times only the functions whose name holds it.
import { createRequire } from 'node:module'
import os from 'node:os'
import { resolve } from 'node:path'
import { loadOpenClaw, installHint } from './openclaw.mjs'

const require = createRequire(import.meta.url)
const th = require(process.env.TH_PACKAGE ?? '../index.js')
const other = process.env.TH_OTHER ? require(resolve(process.env.TH_OTHER, 'index.js')) : null
// The 2026.3.23 scrubbers, beside that release's: pinned in both builds (the package default is
// 2026.9.6; reply-vs-openclaw96.mjs measures that release's).
for (const build of [th, other]) build?.setOpenClawVersion?.('2026.3.23')

const ROUNDS = Number(process.argv[2] ?? process.env.ROUNDS ?? 15)

/** CPU µs of one call of `fn`, over a batch of `n` calls. */
function batch(fn, n) {
  const t = process.cpuUsage()
  for (let i = 0; i < n; i++) fn()
  const d = process.cpuUsage(t)
  return (d.user + d.system) / n
}

/** How many calls make ~`ms` of CPU. */
function sizeBatch(fn, ms = 10) {
  for (let i = 0; i < 5; i++) fn()
  let n = 1
  for (;;) {
    const us = batch(fn, n) * n
    if (us >= ms * 1000 / 4 || n >= 1 << 20) return Math.max(1, Math.round((n * ms * 1000) / Math.max(us, 1)))
    n *= 4
  }
}

/** Interleaved rounds: `{ ours, theirs, ratios }` (µs per call, medians; ratio per round). */
export function sideBySide(ours, theirs, rounds = ROUNDS) {
  const no = sizeBatch(ours)
  const nt = sizeBatch(theirs)
  const a = []
  const b = []
  const ratios = []
  for (let r = 0; r < rounds; r++) {
    const x = batch(ours, no)
    const y = batch(theirs, nt)
    a.push(x)
    b.push(y)
    ratios.push(y / x)
  }
  const med = (v) => [...v].sort((p, q) => p - q)[v.length >> 1]
  return { ours: med(a), theirs: med(b), ratios: [...ratios].sort((p, q) => p - q) }
}

// ---- the replies ----
const en = 'The build failed on the second step, so I checked the log, the lockfile and the cache; the fix is to pin the toolchain and rerun it. '
const zh = '构建在第二步失败了，我检查了日志、锁文件和缓存；解决办法是固定工具链的版本，然后重新运行一次。'
const think = '<think>The user wants the weather; 先查一下北京的天气，再回答。</think>\n'
const call = '\n<minimax:tool_call>\n<invoke name="search_web">\n<parameter name="query">北京天气</parameter>\n</invoke>\n</minimax:tool_call>\n'
function prose(unit) {
  let s = ''
  let i = 0
  while (Buffer.byteLength(s) < 50_000) {
    s += unit
    if (++i % 8 === 0) s += '\n\n'
  }
  return s
}
function withMarkup(p) {
  const mid = p.indexOf('\n\n', p.length >> 1)
  return think + p.slice(0, mid) + call + p.slice(mid)
}
const asciiProse = prose(en)
const zhProse = prose(en + zh)
export const REPLIES = {
  'ASCII, plain': asciiProse,
  'ASCII, <think> + MiniMax call': withMarkup(asciiProse),
  'half Chinese, plain': zhProse,
  'half Chinese, <think> + MiniMax call': withMarkup(zhProse),
}

function functions(f, th) {
  const ocChain = (t) => f.stripReasoningTagsFromText(f.stripDowngradedToolCallText(f.stripModelSpecialTokens(f.stripMinimaxToolCallXml(t))))
  const ourChain = (t) => th.stripThinkingTagsFromText(th.stripDowngradedToolCallText(th.stripModelSpecialTokens(th.stripMinimaxToolCallXml(t))))
  return [
    ['stripMinimaxToolCallXml', th.stripMinimaxToolCallXml, f.stripMinimaxToolCallXml],
    ['stripModelSpecialTokens', th.stripModelSpecialTokens, f.stripModelSpecialTokens],
    ['stripDowngradedToolCallText', th.stripDowngradedToolCallText, f.stripDowngradedToolCallText],
    ['stripThinkingTagsFromText', th.stripThinkingTagsFromText, f.stripReasoningTagsFromText],
    ['chain of the four', ourChain, ocChain],
    ['sanitizeToolCall (vs the chain)', (t) => th.sanitizeToolCall('minimax/MiniMax-M2.1', t), ocChain],
    ['cleanResponse (vs the chain)', (t) => th.cleanResponse(t), ocChain],
  ]
}

export async function run() {
  const oc = await loadOpenClaw()
  if (oc === null) {
    console.log(`\n(c) OpenClaw side by side left out: ${installHint()}`)
    return
  }
  const cpu = os.cpus()[0]
  console.log(`\n(c) 50 KB replies side by side with openclaw ${oc.version}'s own scrubbers: CPU µs per call (median of ${ROUNDS} interleaved rounds), OpenClaw / ours (median, range)`)
  console.log(`machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  if (other) console.log(`other build: ${resolve(process.env.TH_OTHER)}`)
  const extra = other ? ' other build µs | other / ours | range |' : ''
  console.log(`| function | reply | ours µs | OpenClaw µs | OpenClaw / ours | range |${extra}`)
  console.log(`| --- | --- | --- | --- | --- | --- |${other ? ' --- | --- | --- |' : ''}`)
  const span = (r) => `${r.ratios[r.ratios.length >> 1].toFixed(2)}× | ${r.ratios[0].toFixed(2)}–${r.ratios[r.ratios.length - 1].toFixed(2)}×`
  const others = other ? functions(oc.fns, other) : []
  for (const [k, [name, ours, theirs]] of functions(oc.fns, th).entries()) {
    if (process.env.ONLY && !name.includes(process.env.ONLY)) continue
    for (const [label, text] of Object.entries(REPLIES)) {
      const r = sideBySide(() => ours(text), () => theirs(text))
      const o = other ? sideBySide(() => ours(text), () => others[k][1](text)) : null
      console.log(`| ${name} | ${label} | ${r.ours.toFixed(1)} | ${r.theirs.toFixed(1)} | ${span(r)} |${o ? ` ${o.theirs.toFixed(1)} | ${span(o)} |` : ''}`)
    }
  }
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
