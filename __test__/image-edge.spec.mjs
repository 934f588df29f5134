// Unusual image payloads (issue #7, point 4) through the public API: each gives a correct result
// or the documented fallback text, never a crash. JPEG and animated samples come from
// fixtures/images.json (a few KB, written by `cargo test --lib write_node_fixtures -- --ignored`);
// PNGs are made here.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { th, user, text } from './fixtures/helpers.mjs'
import { encodePng, encodePngRows, jpegSize } from './fixtures/png.mjs'

// sharp's limits and texts, as OpenClaw 2026.3.23-2 writes them (src/image/release.rs has
// 2026.9.6's): pinned, whatever the package default is.
th.setOpenClawVersion('2026.3.23')

const { sanitizeSessionMessagesImages, sanitizeContentBlocksImages } = th
const FIX = JSON.parse(readFileSync(new URL('./fixtures/images.json', import.meta.url), 'utf8'))

const image = (data, mimeType = 'image/png') => ({ type: 'image', data, mimeType })
const one = (data, options, mimeType) => sanitizeSessionMessagesImages([user([image(data, mimeType)])], 'session:history', options)[0].content[0]
const size = (block) => {
  assert.equal(block.type, 'image', JSON.stringify(block).slice(0, 160))
  assert.equal(block.mimeType, 'image/jpeg')
  const s = jpegSize(Buffer.from(block.data, 'base64'))
  assert.ok(s, 'the result is a JPEG')
  return [s.width, s.height]
}

describe('image edge cases', () => {
  test('animated GIF and WebP: the first frame, resized to JPEG', () => {
    assert.deepEqual(size(one(FIX.animatedGif, { maxDimensionPx: 16 }, 'image/gif')), [16, 8])
    assert.deepEqual(size(one(FIX.animatedWebp, { maxDimensionPx: 16 }, 'image/webp')), [16, 8])
    // Within the limits an animation is kept as it is.
    const gif = image(FIX.animatedGif, 'image/gif')
    assert.equal(sanitizeSessionMessagesImages([user([gif])], 'x')[0].content[0], gif)
  })

  test('a CMYK JPEG is converted and resized', () => {
    assert.deepEqual(size(one(FIX.cmykJpeg, { maxDimensionPx: 32 }, 'image/jpeg')), [32, 16])
  })

  test('EXIF orientation is applied when resizing (60×20 stored, turned 90°)', () => {
    assert.deepEqual(size(one(FIX.exifRotate90Jpeg, { maxDimensionPx: 10 }, 'image/jpeg')), [3, 10])
  })

  test('16-bit PNG: kept when small, reduced to an 8-bit JPEG when large', () => {
    const png16 = (w, h) => encodePngRows(w, h, { bitDepth: 16, row: (y) => Buffer.alloc(w * 6, y & 0xff) }).toString('base64')
    const small = image(png16(20, 10))
    assert.equal(sanitizeSessionMessagesImages([user([small])], 'x')[0].content[0], small)
    assert.deepEqual(size(one(png16(300, 200), { maxDimensionPx: 150 })), [150, 100])
  })

  test('1×30000 and 30000×1 strips fit inside 1200 px', () => {
    const tall = encodePngRows(1, 30000, { row: (y) => Buffer.from([y & 0xff, 0, 0]) }).toString('base64')
    assert.deepEqual(size(one(tall)), [1, 1200])
    const wide = encodePngRows(30000, 1, { row: () => Buffer.alloc(90000, 7) }).toString('base64')
    assert.deepEqual(size(one(wide)), [1200, 1])
  })

  test('a decompression bomb header is refused before any pixel is allocated', () => {
    const bomb = encodePngRows(1, 1, { row: () => Buffer.alloc(3), declared: { width: 100000, height: 100000 } }).toString('base64')
    assert.deepEqual(one(bomb), { type: 'text', text: '[session:history] omitted image payload: Error: Input image exceeds pixel limit' })
    const big = encodePngRows(1, 1, { row: () => Buffer.alloc(3), declared: { width: 16000, height: 16000 } }).toString('base64')
    assert.match(one(big).text, /^\[session:history\] omitted image payload: Error: /)
  })

  test('truncated data: cut inside the header or the pixels of an oversize image is omitted', () => {
    const png = encodePng(1500, 300, { noise: 3 })
    for (const cut of [16, 40, png.length >> 1]) {
      const b = one(png.subarray(0, cut).toString('base64'))
      assert.equal(b.type, 'text', `cut ${cut}`)
      assert.match(b.text, /^\[session:history\] omitted image payload: Error: /)
    }
  })

  test('a cut or broken image gets what sharp gave, at every cut (recorded through OpenClaw 2026.3.23-2: fixtures/sharp-texts.json)', () => {
    // benchmark/sharp-texts.mjs recorded these: a JPEG header and four PNGs cut at every byte,
    // kept whole or to be shrunk (one turned by its EXIF orientation), and JPEG headers made wrong
    // one field at a time. A shrunk image is compared by its size (the rows sharp read, and the
    // recorded pixels of small results, are checked in src/image/png_partial.rs).
    const T = JSON.parse(readFileSync(new URL('./fixtures/sharp-texts.json', import.meta.url), 'utf8'))
    const run = (data, mimeType, options) => {
      const [o] = sanitizeContentBlocksImages([image(data, mimeType)], T.label, options)
      if (o.type === 'text') return { text: o.text }
      if (o.data === data) return 'kept'
      const s = jpegSize(Buffer.from(o.data, 'base64'))
      return { shrunk: s && [s.width, s.height], mimeType: o.mimeType }
    }
    const want = (o) => (o.shrunk ? { shrunk: o.shrunk, mimeType: 'image/jpeg' } : o)
    const misses = []
    let n = 0
    for (const c of T.cases) {
      const bytes = Buffer.from(c.data, 'base64')
      for (let cut = 1, row = 0; cut <= c.to; cut++, n++) {
        while (row + 1 < c.cuts.length && c.cuts[row + 1][0] <= cut) row++
        const got = run(bytes.subarray(0, cut).toString('base64'), c.mimeType, c.options)
        if (!isDeepStrictEqual(got, want(c.cuts[row][1]))) misses.push(`${c.name}, cut at ${cut}: ${JSON.stringify(got)}`)
      }
    }
    for (const w of T.wrong) {
      const got = run(w.data, w.mimeType, {})
      if (!isDeepStrictEqual(got, want(w.outcome))) misses.push(`${w.name}: ${JSON.stringify(got)}`)
    }
    assert.deepEqual(misses.slice(0, 8), [], `${misses.length} of ${n + T.wrong.length} differ`)
    // Each outcome occurs: texts, kept as written, shrunk.
    const kinds = new Set(T.cases.flatMap((c) => c.cuts.map(([, o]) => (o === 'kept' ? 'kept' : o.text ? 'text' : 'shrunk'))))
    assert.deepEqual([...kinds].sort(), ['kept', 'shrunk', 'text'])
  })

  test('base64 with whitespace, and a data: URL prefix, are cleaned', () => {
    const data = encodePng(40, 30).toString('base64')
    const wrapped = data.replace(/(.{60})/g, '$1\r\n')
    assert.deepEqual(one(` ${wrapped}\n`, undefined, 'image/jpeg'), image(data))
    assert.deepEqual(one(`data:image/png;base64,${data}`), image(data))
    assert.deepEqual(one(`data:image/png;base64,${wrapped}`, undefined, 'image/jpeg'), image(data))
    // An oversize one is resized.
    const wide = encodePng(2600, 400).toString('base64')
    assert.equal(size(one(`data:image/png;base64,${wide}`))[0], 1200)
    // A data URL without ;base64 is still invalid, as in OpenClaw.
    assert.deepEqual(one('data:image/png,%89PNG'), { type: 'text', text: '[session:history] omitted image payload: invalid base64' })
  })

  test('a payload with non-ASCII characters is invalid base64, not a crash', () => {
    assert.deepEqual(one(`${encodePng(40, 30).toString('base64')}é`), { type: 'text', text: '[session:history] omitted image payload: invalid base64' })
    assert.deepEqual(one('\ud800'.repeat(2000)), { type: 'text', text: '[session:history] omitted image payload: invalid base64' })
  })

  test('every sample through the tool-result helper too, next to other blocks', () => {
    const blocks = [text('MEDIA:/tmp/a.png'), ...Object.values(FIX).map((d) => image(d)), image('!!')]
    const out = sanitizeContentBlocksImages(blocks, 'read:/tmp/a.png', { maxDimensionPx: 8 })
    assert.equal(out.length, blocks.length)
    assert.equal(out[0], blocks[0])
    for (const b of out.slice(1, -1)) assert.equal(b.mimeType, 'image/jpeg')
    assert.deepEqual(out.at(-1), { type: 'text', text: '[read:/tmp/a.png] omitted image payload: invalid base64' })
  })
})
