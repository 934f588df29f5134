// The full pass of two builds of this package beside OpenClaw 2026.3.23-2, in one process, row
// by row: `node benchmark/side-by-side.mjs <dir of the other build> [sizes] [rounds]` (sizes
// default 100,1000,10000; rounds default 3). For each size and bench.mjs policy, CPU µs per call
// (benchmark/cpu-time.mjs, best of 7 batches) of OpenClaw, the other build and this one, the
// three measured one after the other and the whole row repeated `rounds` times (each column takes
// its best round): on a shared machine only figures measured this close together compare.
import { createRequire } from 'node:module'
import os from 'node:os'
import { resolve } from 'node:path'
import { cpuTime as time, cpuTimeAsync as timeAsync } from './cpu-time.mjs'
import { loadOpenClaw } from './openclaw.mjs'

const require = createRequire(import.meta.url)
const other = process.argv[2]
if (!other) {
  console.error('usage: node benchmark/side-by-side.mjs <directory of the other build> [sizes] [rounds]')
  process.exit(2)
}
const builds = { other: require(resolve(other, 'index.js')), this: require('../index.js') }
for (const th of Object.values(builds)) th.setOpenClawVersion('2026.3.23')
const sizes = (process.argv[3] || '100,1000,10000').split(',').map(Number)
const rounds = Number(process.argv[4] || 3)
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const oc = await loadOpenClaw()
const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
}
const session = () => ({ getEntries: () => [], appendCustomEntry() {} })
console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, Node ${process.version}, other build: ${resolve(other)}`)
console.log('| messages | policy | OpenClaw | other build | this build | this vs OpenClaw | other vs OpenClaw | this vs other |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const n of sizes) {
  const messages = makeTranscript(n)
  for (const [name, p] of Object.entries(POLICIES)) {
    const ocPolicy = oc ? oc.fns.resolveTranscriptPolicy(p) : undefined
    const best = { oc: Infinity, other: Infinity, this: Infinity }
    for (let r = 0; r < rounds; r++) {
      if (oc) best.oc = Math.min(best.oc, await timeAsync(() => oc.fns.sanitizeSessionHistory({ messages, ...p, policy: ocPolicy, sessionManager: session() })))
      for (const k of r % 2 ? ['this', 'other'] : ['other', 'this']) {
        const params = { messages, ...p, sessionManager: session() }
        best[k] = Math.min(best[k], time(() => builds[k].sanitizeSessionHistory(params)))
      }
    }
    const f = (x) => x.toFixed(0)
    console.log(`| ${n} | ${name} | ${f(best.oc)} | ${f(best.other)} | ${f(best.this)} | ${(best.oc / best.this).toFixed(2)}× | ${(best.oc / best.other).toFixed(2)}× | ${(best.other / best.this).toFixed(3)}× |`)
  }
}
console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
