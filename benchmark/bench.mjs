// npm run bench: sanitizeSessionHistory against a plain-JS pass (same process) and against
// OpenClaw 2026.3.23-2's measured figures, on the shared transcript generator.
import { createRequire } from 'node:module'
import os from 'node:os'
import { jsPass } from './js-baseline.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))

// openclaw 2026.3.23-2 sanitizeSessionHistory per call, Node 20 on a 2-core VM (issue #2): ms.
const OPENCLAW_MS = { 100: 8, 1000: 16, 10000: 100 }

const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', js: { dropThinking: true, sanitizeIds: true } },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2', js: {} },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', js: { sanitizeIds: true } },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large', js: { sanitizeIds: true } },
}

function time(fn, minMs = 300) {
  for (let i = 0; i < 5; i++) fn()
  let n = 0
  const start = process.hrtime.bigint()
  let elapsed = 0
  while (elapsed < minMs * 1e6 || n < 10) {
    fn()
    n++
    elapsed = Number(process.hrtime.bigint() - start)
  }
  return elapsed / n / 1000 // µs per call
}

const cpu = os.cpus()[0]
console.log(`machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`)
console.log('| messages | policy | transcript-hygiene µs | plain JS µs | vs plain JS | OpenClaw µs (measured) | vs OpenClaw |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const n of [100, 1000, 10000]) {
  const messages = makeTranscript(n)
  for (const [name, p] of Object.entries(POLICIES)) {
    const params = { messages, provider: p.provider, modelApi: p.modelApi, modelId: p.modelId }
    const ours = time(() => th.sanitizeSessionHistory(params))
    const js = time(() => jsPass(messages, p.js))
    const oc = OPENCLAW_MS[n] * 1000
    console.log(`| ${n} | ${name} | ${ours.toFixed(0)} | ${js.toFixed(0)} | ${(js / ours).toFixed(2)}× | ${oc} | ${(oc / ours).toFixed(1)}× |`)
  }
}

// Response cleaning and the outbound scrubbers (benchmark/response.mjs).
await import('./response.mjs')

// Tool-call style: migrating flattened histories (benchmark/tool-style.mjs).
await import('./tool-style.mjs')
