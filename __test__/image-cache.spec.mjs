// The process-wide image cache (issue #7): the same oversize image on a later turn is answered
// from the cache (same result, no re-encode), limits are part of the key, the budget holds,
// every function that touches images shares it, and so do worker threads.
// The tests share one cache, so they run in sequence and each starts from a cleared one.
import { describe, test, beforeEach, after } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import { th, user, toolResult, text } from './fixtures/helpers.mjs'
import { encodePng, jpegSize } from './fixtures/png.mjs'

// The decisions cached here are OpenClaw 2026.3.23-2's image step (sharp's texts): pinned, whatever
// the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const { sanitizeSessionMessagesImages, sanitizeSessionHistory, sanitizeContentBlocksImages, imageCacheStats, clearImageCache, configureImageCache } = th

const WIDE = encodePng(2600, 400).toString('base64')
const TALL = encodePng(300, 1500).toString('base64')
const SMALL = encodePng(40, 30).toString('base64')
const image = (data, mimeType = 'image/png') => ({ type: 'image', data, mimeType })
const history = (data) => [user([text('look'), image(data)]), toolResult('c1', 'shot', { content: [image(SMALL)] })]
const decodedSize = (b64) => jpegSize(Buffer.from(b64, 'base64'))
const DEFAULT_BUDGET = imageCacheStats().maxBytes

describe('image cache', { concurrency: false }, () => {
  beforeEach(() => {
    configureImageCache({ maxBytes: DEFAULT_BUDGET })
    clearImageCache()
  })
  after(() => configureImageCache({ maxBytes: DEFAULT_BUDGET }))

  test('figures: the default budget is 64 MiB and a cleared cache is empty', () => {
    assert.equal(DEFAULT_BUDGET, 64 * 1024 * 1024)
    assert.deepEqual(imageCacheStats(), { entries: 0, bytes: 0, maxBytes: DEFAULT_BUDGET, hits: 0, misses: 0, evictions: 0 })
  })

  test('an image within the limits never reaches the cache (its header settles it)', () => {
    sanitizeSessionMessagesImages([user([image(SMALL)])], 'session:history')
    assert.deepEqual(imageCacheStats(), { entries: 0, bytes: 0, maxBytes: DEFAULT_BUDGET, hits: 0, misses: 0, evictions: 0 })
  })

  test('the next turn gets the same result from the cache, for the same objects and for a re-read history', () => {
    const turn1 = history(WIDE)
    const first = sanitizeSessionMessagesImages(turn1, 'session:history')[0].content[1]
    assert.equal(first.mimeType, 'image/jpeg')
    assert.equal(decodedSize(first.data).width, 1200)
    assert.deepEqual({ ...imageCacheStats(), bytes: 0 }, { entries: 1, bytes: 0, maxBytes: DEFAULT_BUDGET, hits: 0, misses: 1, evictions: 0 })
    assert.ok(imageCacheStats().bytes > first.data.length)

    // The same message objects (an agent that keeps its history in memory).
    const again = sanitizeSessionMessagesImages(turn1, 'session:history')[0].content[1]
    assert.equal(again.data, first.data)
    // The same history parsed again from disk: new objects, new strings.
    const reread = sanitizeSessionMessagesImages(JSON.parse(JSON.stringify(turn1)), 'session:history')[0].content[1]
    assert.equal(reread.data, first.data)
    const s = imageCacheStats()
    assert.equal(s.hits, 2)
    assert.equal(s.misses, 1)
    assert.equal(s.entries, 1)
  })

  test('a block whose data was replaced is judged on its new data', () => {
    const input = history(WIDE)
    sanitizeSessionMessagesImages(input, 'session:history')
    input[0].content[1].data = TALL
    const out = sanitizeSessionMessagesImages(input, 'session:history')[0].content[1]
    const size = decodedSize(out.data)
    assert.deepEqual([size.width, size.height], [240, 1200])
  })

  test('the limits are part of the key', () => {
    const input = history(WIDE)
    const a = sanitizeSessionMessagesImages(input, 'session:history')[0].content[1]
    const b = sanitizeSessionMessagesImages(input, 'session:history', { maxDimensionPx: 600 })[0].content[1]
    assert.equal(decodedSize(a.data).width, 1200)
    assert.equal(decodedSize(b.data).width, 600)
    assert.equal(imageCacheStats().entries, 2)
    assert.equal(imageCacheStats().misses, 2)
  })

  test('omission decisions are cached too, and the label is still applied per call', () => {
    const broken = encodePng(1500, 300).subarray(0, 2000).toString('base64') // header intact, pixels cut
    const a = sanitizeSessionMessagesImages([user([image(broken)])], 'first')[0].content[0]
    const b = sanitizeSessionMessagesImages([user([image(broken)])], 'second')[0].content[0]
    assert.ok(a.text.startsWith('[first] omitted image payload: Error:'), a.text)
    assert.equal(b.text, a.text.replace('[first]', '[second]'))
    assert.equal(imageCacheStats().hits, 1)
  })

  test('sanitizeSessionHistory, sanitizeSessionMessagesImages and the tool-result helpers share it', () => {
    sanitizeContentBlocksImages([image(WIDE)], 'read:/tmp/wide.png')
    sanitizeSessionHistory({ messages: history(WIDE), provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' })
    sanitizeSessionMessagesImages(history(WIDE), 'session:history')
    assert.deepEqual([imageCacheStats().misses, imageCacheStats().hits], [1, 2])
  })

  test('the budget holds: least recently used entries are evicted', () => {
    sanitizeSessionMessagesImages(history(WIDE), 'session:history')
    const budget = Math.floor(imageCacheStats().bytes * 1.5) // room for one of these, not two
    const s = configureImageCache({ maxBytes: budget })
    assert.equal(s.maxBytes, budget)
    sanitizeSessionMessagesImages(history(TALL), 'session:history')
    const after = imageCacheStats()
    assert.equal(after.entries, 1)
    assert.equal(after.evictions, 1)
    assert.ok(after.bytes <= after.maxBytes)
    // WIDE was evicted: computing it again is a miss, and still correct.
    const out = sanitizeSessionMessagesImages(history(WIDE), 'session:history')[0].content[1]
    assert.equal(decodedSize(out.data).width, 1200)
    assert.equal(imageCacheStats().misses, 3)
  })

  test('maxBytes 0 turns the cache off; results are unchanged', () => {
    const cached = sanitizeSessionMessagesImages(history(WIDE), 'session:history')[0].content[1]
    assert.equal(configureImageCache({ maxBytes: 0 }).entries, 0)
    const uncached = sanitizeSessionMessagesImages(history(WIDE), 'session:history')[0].content[1]
    assert.equal(uncached.data, cached.data)
    assert.deepEqual([imageCacheStats().entries, imageCacheStats().hits], [0, 0])
  })

  test('configureImageCache rejects what is not a byte count', () => {
    for (const bad of [undefined, null, 5, { maxBytes: -1 }, { maxBytes: '10' }, { maxBytes: NaN }, { maxBytes: Infinity }]) {
      assert.throws(() => configureImageCache(bad), TypeError, JSON.stringify(bad))
    }
    assert.equal(configureImageCache({ maxBytes: 1000.7 }).maxBytes, 1000)
  })

  test('worker threads share the process-wide cache', async () => {
    sanitizeSessionMessagesImages(history(WIDE), 'session:history')
    const code = `
      const { parentPort, workerData } = require('node:worker_threads')
      const th = require(workerData.index)
      const out = th.sanitizeSessionMessagesImages([{ role: 'user', content: [{ type: 'image', data: workerData.data, mimeType: 'image/png' }] }], 'w')
      parentPort.postMessage({ mime: out[0].content[0].mimeType, stats: th.imageCacheStats() })`
    const worker = new Worker(code, { eval: true, workerData: { index: new URL('../index.js', import.meta.url).pathname, data: WIDE } })
    const msg = await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    assert.equal(msg.mime, 'image/jpeg')
    assert.equal(msg.stats.hits, 1, 'the worker found the main thread’s entry')
    assert.equal(imageCacheStats().hits, 1)
  })
})
