// OpenClaw's tool-result image helpers (tool-images.ts): sanitizeContentBlocksImages,
// sanitizeImageBlocks, sanitizeToolResultImages.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, text, runFrozen } from './fixtures/helpers.mjs'
import { encodePng, jpegSize } from './fixtures/png.mjs'

// OpenClaw 2026.3.23-2's image step (sharp's texts; src/image/release.rs has 2026.9.6's): pinned,
// whatever the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const { sanitizeContentBlocksImages, sanitizeImageBlocks, sanitizeToolResultImages } = th

const WIDE = encodePng(2600, 400).toString('base64')
const SMALL = encodePng(40, 30).toString('base64')
const image = (data, mimeType = 'image/png', extra) => ({ type: 'image', data, mimeType, ...extra })

describe('sanitizeContentBlocksImages', () => {
  test('resizes, corrects, replaces; other blocks pass as the same objects; a new array', () => {
    const blocks = [text('MEDIA:/tmp/a.png'), image(WIDE, 'image/png', { fileName: 'a.png' }), image(SMALL, 'image/jpeg'), image('   '), { type: 'custom', x: 1 }]
    const out = runFrozen((b) => sanitizeContentBlocksImages(b, 'read:/tmp/a.png'), blocks)
    assert.notEqual(out, blocks)
    assert.equal(out[0], blocks[0])
    assert.equal(out[1].mimeType, 'image/jpeg')
    assert.equal(out[1].fileName, 'a.png')
    assert.equal(jpegSize(Buffer.from(out[1].data, 'base64')).width, 1200)
    assert.deepEqual(out[2], image(SMALL, 'image/png'))
    assert.deepEqual(out[3], { type: 'text', text: '[read:/tmp/a.png] omitted empty image payload' })
    assert.equal(out[4], blocks[4])
  })

  test('nothing to change: a new array of the same blocks', () => {
    const blocks = [text('a'), image(SMALL)]
    const out = sanitizeContentBlocksImages(blocks, 'x')
    assert.notEqual(out, blocks)
    assert.deepEqual(out, blocks)
    assert.equal(out[1], blocks[1])
  })

  test('limits are honoured', () => {
    const out = sanitizeContentBlocksImages([image(WIDE)], 'x', { maxDimensionPx: 500 })
    assert.equal(jpegSize(Buffer.from(out[0].data, 'base64')).width, 500)
  })

  test('bad arguments are TypeErrors', () => {
    assert.throws(() => sanitizeContentBlocksImages('x', 'l'), /blocks: expected an array of content blocks, got string/)
    assert.throws(() => sanitizeContentBlocksImages([], 3), /label: expected a string, got number/)
    assert.throws(() => sanitizeContentBlocksImages([], 'l', 'opts'), TypeError)
  })
})

describe('sanitizeImageBlocks', () => {
  test('keeps the blocks that are still images and counts the rest', () => {
    const images = [image(WIDE), image('not base64!'), image(SMALL), text('not an image')]
    const r = sanitizeImageBlocks(images, 'tool:screenshot')
    assert.equal(r.dropped, 2)
    assert.equal(r.images.length, 2)
    assert.equal(r.images[0].mimeType, 'image/jpeg')
    assert.equal(r.images[1], images[2])
  })

  test('an empty list comes back as it is', () => {
    const empty = []
    assert.deepEqual(sanitizeImageBlocks(empty, 'x'), { images: empty, dropped: 0 })
    assert.equal(sanitizeImageBlocks(empty, 'x').images, empty)
  })

  test('nothing dropped: a new array of the same blocks', () => {
    const images = [image(SMALL)]
    const r = sanitizeImageBlocks(images, 'x')
    assert.notEqual(r.images, images)
    assert.equal(r.images[0], images[0])
    assert.equal(r.dropped, 0)
  })
})

describe('sanitizeToolResultImages', () => {
  test('a changed result is a shallow copy with the new content', () => {
    const result = { content: [text('shot'), image(WIDE)], details: { path: '/tmp/a.png' } }
    const out = runFrozen((r) => sanitizeToolResultImages(r, 'tool:screenshot'), result)
    assert.notEqual(out, result)
    assert.equal(out.details, result.details)
    assert.equal(out.content[0], result.content[0])
    assert.equal(out.content[1].mimeType, 'image/jpeg')
  })

  test('an unchanged result, or one without a content array, is returned as it is', () => {
    const fine = { content: [text('ok'), image(SMALL)] }
    assert.equal(sanitizeToolResultImages(fine, 'x'), fine)
    const odd = { content: 'text' }
    assert.equal(sanitizeToolResultImages(odd, 'x'), odd)
    assert.throws(() => sanitizeToolResultImages(null, 'x'), /result: expected a tool result object, got null/)
  })
})
