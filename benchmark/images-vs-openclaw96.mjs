// The image step beside OpenClaw 2026.9.6, in one Node 24 process: 2026.9.6's own
// `sanitizeSessionHistory` (its image pass re-encodes through Rastermill and Photon, not sharp)
// and this package's in `'2026.9.6'` mode, on the same histories of screenshots:
//   1. a first pass over a tool result holding one 4000×3000 PNG or JPEG (this package's image cache
//      cleared before each run);
//   2. a later turn: a history whose five screenshots were seen before (this package's cache warm;
//      2026.9.6 does what it does on every call).
// Screenshots are made with sharp (benchmark/ devDependency). 2026.9.6 runs on Node >= 24.16 only: on
// an older Node this file runs itself again on the Node 24 binary scripts/runtimes.sh caches.
//   node benchmark/images-vs-openclaw96.mjs
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { canRunHere, node24, missing, VERSION } from './openclaw-2026.9.6.mjs'

const why = missing()
if (why !== null) {
  console.log(`\nThe image step beside OpenClaw ${VERSION} left out: ${why}`)
} else if (!canRunHere()) {
  const r = spawnSync(node24(), [fileURLToPath(import.meta.url)], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
} else {
  const require = createRequire(import.meta.url)
  let sharp = null
  try {
    sharp = require('sharp')
  } catch {
    console.log('\nbenchmark/images-vs-openclaw96.mjs: sharp is not installed (it makes the screenshots): run `npm install` in benchmark/.')
  }
  if (sharp !== null) await run(require, sharp)
}

async function run(require, sharp) {
  const { loadOpenClaw } = await import('./openclaw.mjs')
  const { screenshotPixels } = await import('./image-fixtures.mjs')
  const { median, timeRuns } = await import('./wall-time.mjs')
  const th = require('../index.js')
  const oc = await loadOpenClaw({ version: VERSION, names: ['sanitizeSessionHistory', 'resolveTranscriptPolicy'] })
  const TARGET = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
  const ocPolicy = oc.fns.resolveTranscriptPolicy(TARGET)
  const session = () => ({ getEntries: () => [], getBranch: () => [], appendCustomEntry() {} })
  const ours = (messages) => th.sanitizeSessionHistory({ messages, ...TARGET, openclawVersion: VERSION, sessionManager: session() })
  // 2026.9.6 logs a line per resized image to stdout: dropped here (not timed as console output).
  const write = process.stdout.write
  const theirs = async (messages) => {
    process.stdout.write = () => true
    try {
      return await oc.fns.sanitizeSessionHistory({ messages, ...TARGET, policy: ocPolicy, sessionManager: session() })
    } finally {
      process.stdout.write = write
    }
  }

  const W = 4000
  const H = 3000
  const shots = async (seed) => {
    const raw = screenshotPixels(W, H, seed)
    const input = { raw: { width: W, height: H, channels: 3 } }
    return { png: await sharp(raw, input).png().toBuffer(), jpeg: await sharp(raw, input).jpeg({ quality: 90 }).toBuffer() }
  }
  const history = (images) => {
    const h = [{ role: 'user', content: '看看这几个截图里的报错', timestamp: 1 }]
    images.forEach(([b64, mime], i) => {
      h.push({ role: 'assistant', content: [{ type: 'toolCall', id: `call_${i}`, name: 'screenshot', arguments: {} }], stopReason: 'toolUse', timestamp: 2 * i + 2 })
      h.push({ role: 'toolResult', toolCallId: `call_${i}`, toolName: 'screenshot', content: [{ type: 'text', text: `截图 ${i + 1}` }, { type: 'image', data: b64, mimeType: mime }], isError: false, timestamp: 2 * i + 3 })
    })
    h.push({ role: 'assistant', content: [{ type: 'text', text: '第二张截图里有一个空指针错误。' }], stopReason: 'stop', timestamp: 99 })
    return h
  }
  /** The image of the last tool result's output: re-encoded by both sides, no larger than the limit. */
  const check = (out, who) => {
    const img = out.filter((m) => m.role === 'toolResult').at(-1).content.find((b) => b.type === 'image')
    if (!img || img.mimeType !== 'image/jpeg') throw new Error(`${who}: the screenshot was not re-encoded`)
  }

  const cpu = os.cpus()[0]
  console.log(`\n## The image step beside OpenClaw ${VERSION} (this package in that mode)`)
  console.log(`machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}`)
  const first = await shots(1)
  console.log('\n| first pass, one 4000×3000 screenshot | bytes | transcript-hygiene ms | OpenClaw 2026.9.6 ms | OpenClaw / this |')
  console.log('| --- | --- | --- | --- | --- |')
  const RUNS = 5
  for (const [name, buf, mime] of [['PNG', first.png, 'image/png'], ['JPEG', first.jpeg, 'image/jpeg']]) {
    const h = history([[buf.toString('base64'), mime]])
    check(ours(h), 'this package')
    check(await theirs(h), 'OpenClaw')
    const a = median(await timeRuns(RUNS, () => {
      th.clearImageCache()
      ours(h)
    }))
    const b = median(await timeRuns(RUNS, () => theirs(h)))
    console.log(`| ${name} | ${buf.length} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(1)}× |`)
  }
  const five = [[first.png, 'image/png'], [first.jpeg, 'image/jpeg']]
  for (const seed of [2, 3, 4]) {
    const more = await shots(seed)
    five.push(seed === 3 ? [more.jpeg, 'image/jpeg'] : [more.png, 'image/png'])
  }
  const h5 = history(five.map(([b, m]) => [b.toString('base64'), m]))
  th.clearImageCache()
  ours(h5)
  const a = median(await timeRuns(9, () => ours(h5)))
  const b = median(await timeRuns(3, () => theirs(h5)))
  console.log('\n| a later turn: five screenshots seen before | transcript-hygiene ms | OpenClaw 2026.9.6 ms | OpenClaw / this |')
  console.log('| --- | --- | --- | --- |')
  console.log(`| the whole pass (wall ms, median) | ${a.toFixed(2)} | ${b.toFixed(1)} | ${(b / a).toFixed(0)}× |`)
}
