// Images within a memory budget: decompression bombs (PNG, GIF, WebP, JPEG: huge dimensions, zero
// data, many frames) through 4 worker threads at once, in a child process whose peak RSS is read
// from the kernel. Each image is refused from its header with the note OpenClaw writes for sharp's
// pixel limit, or decoded at a reduced scale (JPEG); before the decode budget the same run peaked
// at 7.2 GB and took 44 s here.
//
// The bound is derived from the work, not fixed: above what the same 4 workers cost without the
// images (a control child), each worker may hold what the JPEG's scaled decode needs. Both children
// run with glibc's mmap threshold fixed (MALLOC_MMAP_THRESHOLD_), so a large buffer is returned to
// the kernel when freed and the peak is what the addon held: with the default dynamic threshold,
// freed buffers stay in per-thread arenas for reuse, and how many stay depends on how the threads
// interleave (measured at one input: 109 to 178 MiB above the start as the load changed, 265 at
// load 13–15).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const child = fileURLToPath(new URL('./fixtures/bomb-child.mjs', import.meta.url))
const OVER_BUDGET = '[bomb] omitted image payload: Error: Input image exceeds pixel limit'

// name → what each worker must get back.
const EXPECTED = {
  'PNG 11,500 × 11,500, all zeros': OVER_BUDGET,
  'PNG 30,000 × 8,000, no data': OVER_BUDGET,
  'GIF 16,000 × 16,000 screen, 5,000 frames': OVER_BUDGET,
  'GIF 16,000 × 16,000 frame, no data': OVER_BUDGET,
  'WebP 16,384 × 16,384, no data': OVER_BUDGET,
  // Decoded at 1/8 scale (2,000 × 2,000, 12 MB) and re-encoded: bounded, and kept as an image.
  'JPEG 16,000 × 16,000, no data': 'image',
}

// The JPEG bomb as decoded at 1/8 scale: 2,000 × 2,000 RGB (bytes). A worker holds it, its copy
// resized to 1,200 px and the encoder's buffers: at most three times it (one worker alone peaks
// 23 MiB above its start). Decoded at 1/4 scale the same run needs ~4 × 60 MB; whole, 4 × 768 MB.
const SCALED = (16_000 / 8) ** 2 * 3
const PER_WORKER = 3 * SCALED

/** Peak RSS growth (MiB) and results of bomb-child.mjs, in `mode` ('' or 'control'). */
function run(mode) {
  const args = [child, fileURLToPath(new URL('../index.js', import.meta.url)), mode]
  const env = { ...process.env, MALLOC_MMAP_THRESHOLD_: String(128 * 1024) }
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 1 << 24, env }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(out)))),
  )
}

test('decompression bombs in 4 worker threads at once: refused or scaled down, peak RSS above the workers\' own within what the scaled decode needs', { timeout: 120_000 }, async (t) => {
  const base = await run('control')
  const m = await run('')
  const grew = m.peakAfterMiB - m.peakBeforeMiB
  const own = base.peakAfterMiB - base.peakBeforeMiB
  const bound = (4 * PER_WORKER) / 1048576
  t.diagnostic(`peak RSS +${grew} MiB (the workers alone +${own}); bound ${bound.toFixed(0)} MiB above theirs; ${m.ms} ms; payload sizes ${JSON.stringify(m.sizes)}`)
  assert.equal(m.results.length, 4)
  for (const r of m.results) assert.deepEqual(r, EXPECTED)
  assert.ok(grew - own <= bound, `peak RSS grew by ${grew} MiB, ${grew - own} MiB above the workers' own (at most ${bound.toFixed(0)})`)
})

test('maxDecodeBytes sets the budget: the same image is resized under the default and omitted under a smaller budget', async () => {
  const { encodePng } = await import('./fixtures/png.mjs')
  const { th } = await import('./fixtures/helpers.mjs')
  // 1,600 × 1,200 RGB: 5.76 MB of pixels as decoded, over the 1,200 px side so it must be decoded.
  const block = { type: 'image', data: encodePng(1600, 1200).toString('base64'), mimeType: 'image/png' }
  const [resized] = th.sanitizeContentBlocksImages([block], 'tool:read')
  assert.equal(resized.type, 'image')
  assert.equal(resized.mimeType, 'image/jpeg')
  const [within] = th.sanitizeContentBlocksImages([block], 'tool:read', { maxDecodeBytes: 1600 * 1200 * 3 })
  assert.equal(within.type, 'image')
  const [omitted] = th.sanitizeContentBlocksImages([block], 'tool:read', { maxDecodeBytes: 1600 * 1200 * 3 - 1 })
  assert.deepEqual(omitted, { type: 'text', text: '[tool:read] omitted image payload: Error: Input image exceeds pixel limit' })
  const [history] = th.sanitizeSessionMessagesImages([{ role: 'user', content: [block] }], 'session:history', { maxDecodeBytes: 1_000_000 })
  assert.deepEqual(history.content, [{ type: 'text', text: '[session:history] omitted image payload: Error: Input image exceeds pixel limit' }])
})
