// The image step against sharp (what OpenClaw 2026.3.23-2 uses), in the same process:
//   1. first pass, one 4000×3000 PNG and one 4000×3000 JPEG: decode, fit inside 1200 px, JPEG;
//   2. later turns: a history with five such screenshots already seen;
//   3. a 1,000-message transcript without images: what the image step costs.
// sharp is a devDependency of benchmark/ only (benchmark/package.json), so the root install and
// CI never fetch it: `cd benchmark && npm install` first. Without it this prints how and exits 0.
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { screenshotPixels } from './image-fixtures.mjs'
import { ms, median, timeRuns } from './wall-time.mjs'

const require = createRequire(import.meta.url)
let sharp
try {
  sharp = require('sharp')
} catch {
  console.log('benchmark/images.mjs: sharp is not installed; run `npm install` in benchmark/ (it is a devDependency of the benchmark only), then `npm run bench:images`.')
  process.exit(0)
}
const th = require('../index.js')
// OpenClaw 2026.3.23 mode (sharp's image step, the reference it runs beside): pinned (the package
// default is 2026.9.6).
th.setOpenClawVersion('2026.3.23')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))

const W = 4000
const H = 3000
const LABEL = 'session:history'


/** OpenClaw's per-image work with sharp for one oversize image (tool-images.ts, one grid step). */
async function sharpJob(b64) {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new Error('invalid base64')
  const buf = Buffer.from(b64, 'base64')
  await sharp(buf, { failOnError: false }).metadata()
  const out = await sharp(buf, { failOnError: false })
    .rotate()
    .resize({ width: 1200, height: 1200, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 85, mozjpeg: true })
    .toBuffer()
  return out.toString('base64')
}

async function images(seed) {
  const raw = screenshotPixels(W, H, seed)
  const input = { raw: { width: W, height: H, channels: 3 } }
  const png = await sharp(raw, input).png().toBuffer()
  const jpeg = await sharp(raw, input).jpeg({ quality: 90 }).toBuffer()
  return { png, jpeg }
}

const cpu = os.cpus()[0]
console.log(`\nImages — machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}, concurrency ${sharp.concurrency()})`)

const first = await images(1)
// For the Rust step breakdown: cargo test --release --lib image_steps -- --ignored --nocapture
writeFileSync(join(os.tmpdir(), 'th-bench-4000.png'), first.png)
writeFileSync(join(os.tmpdir(), 'th-bench-4000.jpg'), first.jpeg)

// 1. First pass.
console.log('\n| first pass, one 4000×3000 image | bytes | transcript-hygiene ms | sharp ms | sharp / this |')
console.log('| --- | --- | --- | --- | --- |')
const RUNS = 9
for (const [name, buf, mime] of [['PNG', first.png, 'image/png'], ['JPEG', first.jpeg, 'image/jpeg']]) {
  const b64 = buf.toString('base64')
  const ours = await timeRuns(RUNS, () => {
    th.clearImageCache()
    const out = th.sanitizeSessionMessagesImages([{ role: 'user', content: [{ type: 'image', data: b64, mimeType: mime }] }], LABEL)
    if (out[0].content[0].mimeType !== 'image/jpeg') throw new Error('not re-encoded')
  })
  const theirs = await timeRuns(RUNS, () => sharpJob(b64))
  const [a, b] = [median(ours), median(theirs)]
  console.log(`| ${name} | ${buf.length} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(1)}× |`)
}

// 2. Later turns: five screenshots already seen (three PNG, two JPEG, all different).
const five = [first.png, first.jpeg]
for (const seed of [2, 3, 4]) {
  const more = await images(seed)
  five.push(seed === 3 ? more.jpeg : more.png)
}
const b64s = five.map((b) => b.toString('base64'))
const history = []
b64s.forEach((data, i) => {
  history.push({ role: 'assistant', content: [{ type: 'toolCall', id: `call_${i}`, name: 'screenshot', arguments: {} }], stopReason: 'toolUse', timestamp: 2 * i })
  history.push({ role: 'toolResult', toolCallId: `call_${i}`, toolName: 'screenshot', content: [{ type: 'text', text: 'shot' }, { type: 'image', data, mimeType: 'image/png' }], isError: false, timestamp: 2 * i + 1 })
})
th.clearImageCache()
const t0 = process.hrtime.bigint()
th.sanitizeSessionMessagesImages(history, LABEL)
const firstTurn = ms(t0)
const json = JSON.stringify(history)
const reread = Array.from({ length: 21 }, () => JSON.parse(json))
const same = await timeRuns(21, () => th.sanitizeSessionMessagesImages(history, LABEL))
let k = 0
const fresh = await timeRuns(21, () => th.sanitizeSessionMessagesImages(reread[k++], LABEL))
const sharpTurn = await timeRuns(3, async () => {
  for (const b of b64s) await sharpJob(b)
})
const totalMb = b64s.reduce((n, s) => n + s.length, 0) / 1e6
console.log(`\n| later turns: 5 screenshots seen before (${totalMb.toFixed(1)} MB of base64) | ms per call |`)
console.log('| --- | --- |')
console.log(`| first turn (all five re-encoded) | ${firstTurn.toFixed(1)} |`)
console.log(`| later turn, the same message objects (codec remembers each payload's digest) | ${median(same).toFixed(2)} |`)
console.log(`| later turn, history re-read from disk (new strings: each payload read and hashed) | ${median(fresh).toFixed(2)} |`)
console.log(`| sharp, every turn (OpenClaw has no cache) | ${median(sharpTurn).toFixed(1)} |`)
const s = th.imageCacheStats()
console.log(`cache: ${s.entries} entries, ${s.bytes} bytes, ${s.hits} hits, ${s.misses} misses`)

// 3. No images: the image step's cost in a 1,000-message transcript.
function timeSync(fn, totalMs = 600) {
  for (let i = 0; i < 20; i++) fn()
  const per = 20
  const batches = []
  const start = process.hrtime.bigint()
  while (ms(start) < totalMs || batches.length < 9) {
    const b = process.hrtime.bigint()
    for (let i = 0; i < per; i++) fn()
    batches.push((ms(b) * 1000) / per)
  }
  return median(batches)
}
const t1000 = makeTranscript(1000)
const imagesOnly = timeSync(() => th.sanitizeSessionMessagesImages(t1000, LABEL, { sanitizeMode: 'images-only' }))
const noop = timeSync(() => th.stripToolResultDetails(t1000))
console.log('\n| 1,000 messages, no images | µs per call |')
console.log('| --- | --- |')
console.log(`| sanitizeSessionMessagesImages (images-only): whole call | ${imagesOnly.toFixed(0)} |`)
console.log(`| stripToolResultDetails (same codec and boundary, a rule that finds nothing) | ${noop.toFixed(0)} |`)
console.log(`| the image step (difference) | ${Math.max(0, imagesOnly - noop).toFixed(0)} |`)
console.log('(medians; times on a shared machine vary by ±10–20%)')
