// transcript-hygiene/ai-sdk's toolCallRecovery side by side with @ai-sdk-tool/parser 4.1.26 (the
// AI SDK middleware that parses text tool calls; installed under benchmark/ai-sdk-peer/ by
// scripts/install-reference.sh), in this process, on the same replies: every case of the reply
// table (__test__/fixtures/replies/, each with its source) that holds calls, and every twin that
// must come back as written. Both run as the AI SDK runs a middleware: transformParams on the
// call's params (tools given as AI SDK function tools), then wrapGenerate / wrapStream around a
// model that returns the reply (the stream in pieces of 1 to 4 UTF-16 units).
//
// The parser ships one middleware per protocol (Hermes `<tool_call>{json}`, Qwen3-Coder,
// morph-XML, YAML-XML); a user picks one. Its row "best of 4" counts a reply as recovered when any
// of the four recovers it (the most a user could get by picking per reply).
//
// Timing: process CPU time (process.cpuUsage) over all replies, the sides interleaved round by
// round; the table shows medians per reply.
//   node benchmark/ai-sdk.mjs [rounds]
import { createRequire } from 'node:module'
import { readFileSync, readdirSync } from 'node:fs'
import os from 'node:os'

const require = createRequire(import.meta.url)
const { toolCallRecovery } = require('../js/ai-sdk.js')
const { cleanResponse } = require('../index.js')
let peer
try {
  peer = createRequire(new URL('./ai-sdk-peer/package.json', import.meta.url))('@ai-sdk-tool/parser')
} catch {
  console.error('benchmark/ai-sdk-peer is not installed: run `sh scripts/install-reference.sh`')
  process.exit(1)
}
const peerVersion = JSON.parse(readFileSync(new URL('./ai-sdk-peer/node_modules/@ai-sdk-tool/parser/package.json', import.meta.url), 'utf8')).version

const ROUNDS = Math.max(1, Number(process.argv[2] ?? 7))

const DIR = new URL('../__test__/fixtures/replies/', import.meta.url)
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(new URL(f, DIR), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)))
  // Cases whose expectation depends on an option the AI SDK call does not carry are left out.
  .filter((c) => c.options?.structuredToolCalls === undefined && c.options?.toolCalls === undefined && c.options?.thinking === undefined && c.options?.reasoningOpen === undefined)
const positives = cases.filter((c) => c.kind === 'positive' && (c.calls ?? []).length > 0 && (c.problems ?? []).length === 0)
const negatives = cases.filter((c) => c.kind === 'negative' && c.content === null)

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const STOP = { unified: 'stop', raw: 'stop' }

/** The call's params: a function tool per tool the case offers or calls. */
function paramsFor(c) {
  const schemas = new Map((c.options?.tools ?? []).map((t) => [t.function.name, t.function.parameters]))
  for (const call of c.calls ?? []) if (!schemas.has(call.name)) schemas.set(call.name, { type: 'object', properties: {} })
  const tools = [...schemas].map(([name, inputSchema]) => ({ type: 'function', name, inputSchema }))
  return { prompt: [{ role: 'user', content: [{ type: 'text', text: '查一下' }] }], tools, providerOptions: { toolCallMiddleware: { onError: () => {} } } }
}

function streamOf(text) {
  const parts = [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }]
  for (let at = 0, n = 1; at < text.length; at += n, n = (n % 4) + 1) parts.push({ type: 'text-delta', id: 't', delta: text.slice(at, at + n) })
  parts.push({ type: 'text-end', id: 't' }, { type: 'finish', finishReason: STOP, usage: USAGE })
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p)
      controller.close()
    },
  })
}

/** One prepared run per case: the params after the middleware's transformParams. */
async function prepare(m, c) {
  const mw = typeof m === 'function' ? m(c) : m
  const model = { specificationVersion: 'v3', provider: 'bench.chat', modelId: c.options?.model ?? 'bench-model' }
  const params = mw.transformParams ? await mw.transformParams({ type: 'generate', params: paramsFor(c), model }) : paramsFor(c)
  return { mw, c, model, params }
}

async function generate({ mw, c, model, params }) {
  const reply = { content: [{ type: 'text', text: c.input }], finishReason: STOP, usage: USAGE, warnings: [] }
  const r = await mw.wrapGenerate({ doGenerate: async () => reply, doStream: async () => ({ stream: streamOf(c.input) }), params, model })
  return r.content
}

async function stream({ mw, c, model, params }) {
  const { stream: s } = await mw.wrapStream({ doGenerate: async () => ({}), doStream: async () => ({ stream: streamOf(c.input) }), params, model })
  const content = []
  let text = ''
  for await (const p of s) {
    if (p.type === 'tool-call') content.push(p)
    else if (p.type === 'text-delta') text += p.delta
  }
  if (text !== '') content.push({ type: 'text', text })
  return content
}

const parse = (input) => {
  try {
    return typeof input === 'string' ? JSON.parse(input) : input
  } catch {
    return input
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)

/** Positive: the calls, names and arguments, exactly. Negative: no call and the text as written. */
function right(c, content) {
  const calls = content.filter((p) => p.type === 'tool-call').map((p) => ({ name: p.toolName, arguments: parse(p.input) }))
  if (c.kind === 'positive') return same(calls, c.calls.map(({ name, arguments: a }) => ({ name, arguments: a })))
  const text = content.filter((p) => p.type === 'text').map((p) => p.text).join('')
  return calls.length === 0 && text === c.input
}

// Ours is configured per reply as a user configures it for their model: its `format` when the case
// names one (the model id reaches it as the wrapped model's id).
const ours = new Map()
const oursFor = (c) => {
  const f = c.options?.format
  if (!ours.has(f)) ours.set(f, toolCallRecovery(f === undefined ? {} : { format: f }))
  return ours.get(f)
}
const CONTENDERS = {
  'transcript-hygiene toolCallRecovery()': [oursFor],
  [`@ai-sdk-tool/parser hermesToolMiddleware`]: [peer.hermesToolMiddleware],
  [`@ai-sdk-tool/parser qwen3CoderToolMiddleware`]: [peer.qwen3CoderToolMiddleware],
  [`@ai-sdk-tool/parser morphXmlToolMiddleware`]: [peer.morphXmlToolMiddleware],
  [`@ai-sdk-tool/parser yamlXmlToolMiddleware`]: [peer.yamlXmlToolMiddleware],
}

const formatOf = (c) => cleanResponse(c.input, c.options).format ?? '(none)'
const families = [...new Set(positives.map(formatOf))].sort()

const rows = []
const byFamily = {}
const prepared = {}
for (const [name, [mw]] of Object.entries(CONTENDERS)) {
  prepared[name] = { pos: await Promise.all(positives.map((c) => prepare(mw, c))), neg: await Promise.all(negatives.map((c) => prepare(mw, c))) }
  const okGen = []
  const okStream = []
  for (const p of [...prepared[name].pos, ...prepared[name].neg]) {
    okGen.push(right(p.c, await generate(p).catch(() => [])))
    okStream.push(right(p.c, await stream(p).catch(() => [])))
  }
  rows.push({ name, okGen, okStream })
  byFamily[name] = new Set(positives.filter((c, i) => okGen[i]).map(formatOf))
}
const peerRows = rows.slice(1)
const best = (key) => rows[1][key].map((_, i) => peerRows.some((r) => r[key][i]))
rows.push({ name: `@ai-sdk-tool/parser, best of 4 per reply`, okGen: best('okGen'), okStream: best('okStream'), best: true })
byFamily[rows.at(-1).name] = new Set(positives.filter((c, i) => rows.at(-1).okGen[i]).map(formatOf))

// ---- speed: all replies through each middleware, CPU time, interleaved ----
async function cpuPerReply(list, fn) {
  const t = process.cpuUsage()
  for (const p of list) await fn(p)
  const d = process.cpuUsage(t)
  return (d.user + d.system) / list.length
}
const speed = {}
for (const name of Object.keys(CONTENDERS)) speed[name] = { gen: [], stream: [] }
for (let r = 0; r < ROUNDS + 1; r++) {
  for (const name of Object.keys(CONTENDERS)) {
    const all = [...prepared[name].pos, ...prepared[name].neg]
    const g = await cpuPerReply(all, (p) => generate(p).catch(() => null))
    const s = await cpuPerReply(all, (p) => stream(p).catch(() => null))
    if (r > 0) {
      speed[name].gen.push(g)
      speed[name].stream.push(s)
    }
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]

const count = (v, from, to) => v.slice(from, to).filter(Boolean).length
const P = positives.length
const N = negatives.length
console.log(`# AI SDK middleware side by side — ${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, @ai-sdk-tool/parser ${peerVersion}, ${ROUNDS} rounds`)
console.log(`# ${P} replies with calls (${families.length} formats as transcript-hygiene names them), ${N} twins that must stay as written; ${positives.filter((c) => c.lang === 'zh').length + negatives.filter((c) => c.lang === 'zh').length} of them Chinese`)
console.log('')
console.log('| middleware | formats with a call recovered | calls recovered, generate | calls recovered, stream | twins kept, generate | twins kept, stream | µs per reply, generate | µs per reply, stream |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const r of rows) {
  const sp = r.best ? ['—', '—'] : [med(speed[r.name].gen).toFixed(0), med(speed[r.name].stream).toFixed(0)]
  console.log(`| ${r.name} | ${byFamily[r.name].size} of ${families.length} | ${count(r.okGen, 0, P)} of ${P} | ${count(r.okStream, 0, P)} of ${P} | ${count(r.okGen, P)} of ${N} | ${count(r.okStream, P)} of ${N} | ${sp[0]} | ${sp[1]} |`)
}
console.log('')
// The Chinese replies alone (lang zh in the table).
const all = [...positives, ...negatives]
const zh = (v, kind) => v.filter((ok, i) => ok && all[i].lang === 'zh' && all[i].kind === kind).length
const zp = positives.filter((c) => c.lang === 'zh').length
const zn = negatives.filter((c) => c.lang === 'zh').length
console.log('| middleware, Chinese replies only | calls recovered, generate | calls recovered, stream | twins kept, generate | twins kept, stream |')
console.log('| --- | --- | --- | --- | --- |')
for (const r of rows) console.log(`| ${r.name} | ${zh(r.okGen, 'positive')} of ${zp} | ${zh(r.okStream, 'positive')} of ${zp} | ${zh(r.okGen, 'negative')} of ${zn} | ${zh(r.okStream, 'negative')} of ${zn} |`)
console.log('')
console.log('Formats the peer recovers at least one reply of (best of 4): ' + ([...byFamily[rows.at(-1).name]].sort().join(', ') || 'none'))
