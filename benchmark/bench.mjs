// npm run bench: sanitizeSessionHistory side by side with OpenClaw 2026.3.23-2's own
// sanitizeSessionHistory (loaded in this process by benchmark/openclaw.mjs) and with a plain-JS
// pass, on the shared transcript generator; then a session of 200 turns growing to 10,000
// messages (OpenClaw, our full pass, our incremental pass). The transcript tables run beside
// 2026.9.6 instead under benchmark/transcript-vs-openclaw96.mjs (benchmark/transcript-mode.mjs).
import { createRequire } from 'node:module'
import os from 'node:os'
import { cpuTime as time, cpuTimeAsync as timeAsync } from './cpu-time.mjs'
import { jsPass } from './js-baseline.mjs'
import { installHint } from './openclaw.mjs'
import { VERSION, loadReference, emptySession } from './transcript-mode.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
// This package runs the pass of the release it is timed beside (the package default is 2026.9.6).
th.setOpenClawVersion(VERSION)
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))

const oc = await loadReference()
if (oc === null) console.log(`OpenClaw columns left out: ${installHint()}`)

// Neither side has a session manager to talk to: both read no entries and append nowhere.
const sessionManager = emptySession

// OpenClaw is given its policy resolved once, by its own resolveTranscriptPolicy: outside a
// running gateway (no active plugin registry) resolving it scans the provider plugins on every
// call, tens of ms that a gateway does not pay. This package resolves its policy on every call.
const ocPolicy = (p) => (oc ? oc.fns.resolveTranscriptPolicy({ provider: p.provider, modelApi: p.modelApi, modelId: p.modelId }) : undefined)

const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', js: { dropThinking: true, sanitizeIds: true } },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2', js: {} },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', js: { sanitizeIds: true } },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large', js: { sanitizeIds: true } },
}

const cpu = os.cpus()[0]
console.log(`machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}`)
console.log(`reference: ${oc ? `openclaw ${oc.version} (${oc.dir})` : 'not installed'}`)
console.log('\n### sanitizeSessionHistory, one full pass (CPU µs per call, best of 7 batches)\n')
console.log('| messages | policy | transcript-hygiene | OpenClaw | vs OpenClaw | plain JS | vs plain JS |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const n of [100, 1000, 10000]) {
  const messages = makeTranscript(n)
  for (const [name, p] of Object.entries(POLICIES)) {
    const params = { messages, provider: p.provider, modelApi: p.modelApi, modelId: p.modelId, sessionManager: sessionManager() }
    // Beside 2026.9.6 both sides get the policy it resolves: the oracle process has no external
    // provider plugins (Mistral's), and this package would apply Mistral's plugin policy.
    const ourParams = VERSION === '2026.9.6' && oc ? { ...params, policy: ocPolicy(p) } : params
    const ours = time(() => th.sanitizeSessionHistory(ourParams))
    const js = time(() => jsPass(messages, p.js))
    const theirParams = { ...params, policy: ocPolicy(p) }
    const theirs = oc ? await timeAsync(() => oc.fns.sanitizeSessionHistory(theirParams)) : NaN
    const ocCols = oc ? `${theirs.toFixed(0)} | ${(theirs / ours).toFixed(1)}×` : '— | —'
    console.log(`| ${n} | ${name} | ${ours.toFixed(0)} | ${ocCols} | ${js.toFixed(0)} | ${(js / ours).toFixed(2)}× |`)
  }
}

await import('./session.mjs')
// `node benchmark/bench.mjs transcript`: the transcript tables only.
if (process.argv[2] === 'transcript') process.exit(0)

// Response cleaning and the outbound scrubbers (benchmark/response.mjs).
await import('./response.mjs')

// Tool-call style: migrating flattened histories (benchmark/tool-style.mjs).
await import('./tool-style.mjs')
