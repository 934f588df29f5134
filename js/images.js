'use strict'
// OpenClaw's tool-result image helpers (tool-images.ts) and the process-wide image cache.
// The image step runs in Rust, through the same codec as the transcript pass (a block list
// travels as the content of one wrapper message); nothing is decided here.

const native = require('../binding.js')
const { run } = require('./run.js')
const { isObject, fail } = require('./args.js')
const { OPTIONS, pick } = require('./options.js')

function checkArgs(name, list, label) {
  if (!Array.isArray(list)) fail(name, 'an array of content blocks', list)
  if (typeof label !== 'string') fail('label', 'a string', label)
}

/** Runs `op` on `blocks` as one message's content; `null` when nothing changed. */
function runOnBlocks(op, blocks, label, options) {
  const wrapped = [{ role: 'user', content: blocks }]
  const r = run(op, wrapped, { ...pick(options, OPTIONS.images, 'options'), label }, 'blocks')
  return { content: r.messages === wrapped ? null : r.messages[0].content, extra: r.plan.extra || {} }
}

function sanitizeContentBlocksImages(blocks, label, options) {
  checkArgs('blocks', blocks, label)
  const { content } = runOnBlocks('sanitizeContentBlocksImages', blocks, label, options)
  return content === null ? blocks.slice() : content
}

function sanitizeImageBlocks(images, label, options) {
  checkArgs('images', images, label)
  if (images.length === 0) return { images, dropped: 0 }
  const { content, extra } = runOnBlocks('sanitizeImageBlocks', images, label, options)
  return { images: content === null ? images.slice() : content, dropped: extra.dropped || 0 }
}

function sanitizeToolResultImages(result, label, options) {
  if (!isObject(result)) fail('result', 'a tool result object', result)
  if (typeof label !== 'string') fail('label', 'a string', label)
  const blocks = result.content
  if (!Array.isArray(blocks)) return result
  const { content } = runOnBlocks('sanitizeContentBlocksImages', blocks, label, options)
  return content === null ? result : { ...result, content }
}

function imageCacheStats() {
  return native.imageCacheStats()
}

function clearImageCache() {
  native.clearImageCache()
}

function configureImageCache(options) {
  if (!isObject(options)) fail('options', 'an object like { maxBytes }', options)
  const m = options.maxBytes
  if (typeof m !== 'number' || !(m >= 0) || !Number.isFinite(m)) {
    throw new TypeError(`options.maxBytes: expected a finite number of bytes ≥ 0, got ${typeof m === 'number' ? m : typeof m}`)
  }
  return native.configureImageCacheBytes(Math.floor(m))
}

module.exports = {
  sanitizeContentBlocksImages,
  sanitizeImageBlocks,
  sanitizeToolResultImages,
  imageCacheStats,
  clearImageCache,
  configureImageCache,
}
