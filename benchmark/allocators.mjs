// The global allocator, measured: the same package loaded once per allocator build (built by
// `bash benchmark/allocators.sh` into benchmark/allocators/), all in this one process, timed in
// interleaved rounds on the same inputs. Then each build's worker-thread scenarios
// (__test__/fixtures/workers/scenario.cjs) in a child process: "crash" is a child killed by a signal.
import { createRequire } from 'node:module'
import { existsSync, readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import os from 'node:os'

const require = createRequire(import.meta.url)
const dir = fileURLToPath(new URL('./allocators/', import.meta.url))
const builds = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.node')).map((f) => f.slice(0, -5)).sort() : []
if (builds.length === 0) {
  console.log('\nallocators: no builds in benchmark/allocators/ — run `bash benchmark/allocators.sh` first (a few minutes per build)')
  process.exit(0)
}

const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url)).catch(() => import('../__test__/fixtures/transcripts.mjs'))

/** A fresh copy of the package's JS bound to one native build. */
function load(name) {
  const root = fileURLToPath(new URL('../', import.meta.url))
  for (const k of Object.keys(require.cache)) if (k.startsWith(root) && !k.includes('node_modules')) delete require.cache[k]
  process.env.NAPI_RS_NATIVE_LIBRARY_PATH = `${dir}${name}.node`
  const th = require('../index.js')
  delete process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  // The README's allocator table is OpenClaw 2026.3.23 mode: pinned (the package default is 2026.9.6).
  th.setOpenClawVersion('2026.3.23')
  return th
}

// CPU µs per call (user + system time of this process, so other processes on the machine move it
// far less than wall time): median of ~20 ms batches over `ms` of CPU time.
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
function time(fn, ms = 300) {
  for (let i = 0; i < 3; i++) fn()
  const t0 = cpu()
  fn()
  const per = Math.max(1, Math.round(20_000 / Math.max(cpu() - t0, 1)))
  const batches = []
  const start = cpu()
  while (cpu() - start < ms * 1000 || batches.length < 5) {
    const b = cpu()
    for (let i = 0; i < per; i++) fn()
    batches.push((cpu() - b) / per)
  }
  batches.sort((a, b) => a - b)
  return batches[batches.length >> 1]
}

const para = (i, zh) => (zh ? `第${i}段：模型在这里解释它正在做什么，包括文件、计划和目前的结果。English words too.\n\n` : `Paragraph ${i}: the model explains what it is doing, with the files, the plan and the results so far.\n\n`)
const call = (i) => `<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">src/file_${i}.rs</parameter>\n</invoke>\n</minimax:tool_call>\n`
function reply(zh, every) {
  let s = '<think>The user wants the files read; 我先读取文件。</think>\n'
  for (let i = 0; Buffer.byteLength(s) < 50_000; i++) s += para(i, zh) + (i % every === every - 1 ? call(i) : '')
  return s
}

const t1k = makeTranscript(1000)
const t10k = makeTranscript(10000)
const CASES = {
  'transcript 1,000 msgs (anthropic)': (th) => th.sanitizeSessionHistory({ messages: t1k, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }),
  'transcript 10,000 msgs (anthropic)': (th) => th.sanitizeSessionHistory({ messages: t10k, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }),
  'transcript 10,000 msgs (mistral)': (th) => th.sanitizeSessionHistory({ messages: t10k, provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' }),
  '50 KB reply, ASCII, one call': ((r) => (th) => th.cleanResponse(r))(reply(false, 1000)),
  '50 KB reply, half Chinese, one call': ((r) => (th) => th.cleanResponse(r))(reply(true, 1000)),
  '50 KB reply, call-dense (every 2nd paragraph)': ((r) => (th) => th.cleanResponse(r))(reply(true, 2)),
}

const pkgs = Object.fromEntries(builds.map((b) => [b, load(b)]))
const ROUNDS = 5
const samples = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(CASES)) {
    // Rotate the order each round so no build always runs right after another.
    for (let i = 0; i < builds.length; i++) {
      const b = builds[(i + round) % builds.length]
      ;((samples[name] ??= {})[b] ??= []).push(time(() => fn(pkgs[b])))
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

const scenarios = ['sequential', 'rounds', 'staggered', 'terminate', 'main-after', 'every-export']
const survived = {}
for (const b of builds) {
  survived[b] = scenarios.map((s) => {
    const r = spawnSync(process.execPath, [fileURLToPath(new URL('../__test__/fixtures/workers/scenario.cjs', import.meta.url)), s], { env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: `${dir}${b}.node` }, encoding: 'utf8', timeout: 300_000 })
    return r.signal ? `${s}: ${r.signal}` : r.status === 0 ? null : `${s}: exit ${r.status}`
  }).filter(Boolean)
}

const model = os.cpus()[0]
console.log(`\nGlobal allocator (benchmark/allocators.mjs): ${os.cpus().length} × ${model ? model.model : 'cpu'}, Node ${process.version}; median of ${ROUNDS} interleaved rounds, CPU µs per call, ratio to the system allocator`)
console.log(`| case | ${builds.join(' | ')} |`)
console.log(`| --- | ${builds.map(() => '---').join(' | ')} |`)
for (const name of Object.keys(CASES)) {
  const base = median(samples[name].system ?? samples[name][builds[0]])
  console.log(`| ${name} | ${builds.map((b) => `${median(samples[name][b]).toFixed(0)} (${(median(samples[name][b]) / base).toFixed(2)}×)`).join(' | ')} |`)
}
console.log(`| worker scenarios (${scenarios.length}) | ${builds.map((b) => (survived[b].length ? `**crashed**: ${survived[b].join(', ')}` : 'all passed')).join(' | ')} |`)
