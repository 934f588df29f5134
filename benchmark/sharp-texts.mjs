// Records what OpenClaw 2026.3.23-2 says of an image sharp cannot read whole, and writes it to
// __test__/fixtures/sharp-texts.json, the table __test__/sharp-texts.spec.mjs runs through this
// package (and src/image/libjpeg_header/tests.rs reads for the JPEG rows):
//   - a 300×200 JPEG cut at every byte of its header (up to just past its scan header), kept
//     whole and to be shrunk (maxDimensionPx 100: sharp decodes it), a progressive one to be
//     shrunk, then the header made wrong one field at a time;
//   - a small PNG (kept as it is when whole) cut at every byte;
//   - a PNG that must be shrunk (maxDimensionPx 24), cut at every byte: sharp decodes what the
//     complete IDAT chunks hold and re-encodes it (the rows it could not read are black);
//   - the same, interlaced (Adam7);
//   - an RGBA PNG with an EXIF orientation (`eXIf`, 6: turned a quarter) to be shrunk, cut at
//     every byte: sharp turns what it read (`rotate()`), so the result is taller than wide.
// Then `pixels`: a few small PNGs with transparency (RGBA, grey with alpha, a palette with
// `tRNS`) or an orientation, whole or cut in their pixels, and sharp's result decoded (raw,
// `channels` a pixel) to compare colours with: its JPEG writer flattens transparency, and the
// rows it could not read, onto black.
// Then `rastermill`: the three transparent PNGs, whole, to be shrunk by OpenClaw 2026.9.6 (its
// `sanitizeSessionHistory` on a tool result with Chinese text beside the image, the limit from its
// config's `imageMaxDimensionPx`), and its result decoded the same way: Rastermill re-encodes
// through Photon, whose JPEG writer drops the alpha channel (each pixel keeps its stored colour).
// Each row: the first cut it holds for (until the next row) and what `sanitizeContentBlocksImages`
// returned: `"kept"`, `{ text }`, or `{ shrunk: [w, h], black, rows }` (`black`: rows of the
// result that are black; `rows`: rows of the image sharp decodes at full size, read through the
// same sharp with the same options). OpenClaw 2026.3.23-2 runs its own sharp (0.34.5: libvips,
// libspng for PNG, libjpeg-turbo); the images are made with benchmark/'s sharp. Rerun this when the
// reference changes (about a minute):
//   node benchmark/sharp-texts.mjs
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'
import { loadOpenClaw, installHint } from './openclaw.mjs'
import { runOpenClaw96, missing as missing96, VERSION as V96 } from './openclaw-2026.9.6.mjs'

const ref = await loadOpenClaw({ names: ['sanitizeContentBlocksImages'] })
if (ref === null) {
  console.log(installHint())
  process.exit(0)
}
const sharp = createRequire(import.meta.url)('sharp')
// The sharp OpenClaw itself loads (its own dependency), for the rows it decodes.
const ocSharp = createRequire(`${ref.dir}/package.json`)('sharp')
const f = ref.fns.sanitizeContentBlocksImages
// A Chinese label: the texts carry it in front.
const LABEL = '读取:截图'
console.log(`OpenClaw ${ref.version}, its sharp ${ocSharp.versions.sharp} (libvips ${ocSharp.versions.vips}, libspng ${ocSharp.versions.spng}); images made with sharp ${sharp.versions.sharp}`)
// OpenClaw logs each resize; the table is what it returns.
console.warn = () => {}
console.log = ((log) => (...a) => (typeof a[0] === 'string' && a[0].includes('[agents/') ? undefined : log(...a)))(console.log)

/** Rows of a decoded image (`channels` per pixel) that are black, and the first row that is. */
function blackRows(data, width, height, channels) {
  let black = 0
  for (let y = 0; y < height; y++) {
    let max = 0
    for (let i = y * width * channels; i < (y + 1) * width * channels; i++) max = Math.max(max, data[i])
    if (max < 16) black++
  }
  return black
}

async function outcome(bytes, mimeType, options) {
  const data = bytes.toString('base64')
  const [o] = await f([{ type: 'image', data, mimeType }], LABEL, options)
  if (o.type === 'text') return { text: o.text }
  if (o.data === data) return 'kept'
  const out = Buffer.from(o.data, 'base64')
  const { data: px, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true })
  // The rows sharp read: decoded at full size (black where it could not read).
  const full = await ocSharp(bytes, { failOnError: false }).raw().toBuffer({ resolveWithObject: true })
  const rows = full.info.height - blackRows(full.data, full.info.width, full.info.height, full.info.channels)
  return { shrunk: [info.width, info.height], black: blackRows(px, info.width, info.height, info.channels), rows }
}

/** Every cut from `first` to `last`, as rows of [first cut, outcome] (one per change). */
async function cuts(bytes, mimeType, options, first, last) {
  const rows = []
  let prev = null
  for (let cut = first; cut <= last; cut++) {
    const o = await outcome(bytes.subarray(0, cut), mimeType, options)
    const key = JSON.stringify(o)
    if (key !== prev) rows.push([cut, o])
    prev = key
  }
  return rows
}

// JPEG: the header's markers.
const W = 300
const H = 200
const raw = Buffer.alloc(W * H * 3)
for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) & 255
const jpg = await sharp(raw, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
const at = (m) => jpg.findIndex((b, i) => i >= 2 && b === 0xff && jpg[i + 1] === m)
const [dqt, sof, dht, sos] = [at(0xdb), at(0xc0), at(0xc4), at(0xda)]
console.log(`JPEG: DQT ${dqt}, SOF0 ${sof}, DHT ${dht}, SOS ${sos}`)
const head = jpg.subarray(0, sos + 20)
const prog = await sharp(raw, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 90, progressive: true }).toBuffer()
const progSos = prog.findIndex((b, i) => i >= 2 && b === 0xff && prog[i + 1] === 0xda)
const progHead = prog.subarray(0, progSos + 20)
const JSHRINK = { maxDimensionPx: 100 }
const set = (fields) => {
  const b = Buffer.from(head)
  for (const [i, v] of fields) b[i] = v
  return b
}
const splice = (i, bytes) => Buffer.concat([head.subarray(0, i), Buffer.from(bytes), head.subarray(i)])
const wrong = {
  'SOF height 0': set([[sof + 5, 0], [sof + 6, 0]]),
  'SOF 7 components': set([[sof + 9, 7]]),
  SOF3: set([[sof + 1, 0xc3]]),
  SOF5: set([[sof + 1, 0xc5]]),
  'SOS before SOF': set([[sof + 1, 0xe1]]),
  'unknown marker 0x02': set([[dqt + 1, 0x02]]),
  'DQT index 5': set([[dqt + 4, 0x05]]),
  'DHT index 7': set([[dht + 4, 0x07]]),
  'DHT AC index 6': set([[dht + 4, 0x16]]),
  'DQT length + 1': set([[dqt + 3, head[dqt + 3] + 1]]),
  'DRI length 5': splice(sos, [0xff, 0xdd, 0, 5, 0, 0]),
  'two SOI': splice(2, [0xff, 0xd8]),
  'two SOF': splice(sos, head.subarray(sof, sof + 19)),
  'SOS component 9': set([[sos + 5, 9]]),
  'SOS 5 components': set([[sos + 4, 5]]),
  'bytes before a marker': splice(2, [1, 2, 3]),
  'precision 12': set([[sof + 4, 12]]),
  'DAC index 40': splice(sos, [0xff, 0xcc, 0, 4, 40, 0x10]),
  'DAC value 0x1f': splice(sos, [0xff, 0xcc, 0, 4, 1, 0x1f]),
}

// PNG: chunks of `piece` bytes of pixel data (encoders write 8 KiB and more; small chunks put
// many chunk ends in a small image).
const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (b) => {
  let c = 0xffffffff
  for (const x of b) c = CRC[(c ^ x) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
function chunk(type, data) {
  const b = Buffer.alloc(12 + data.length)
  b.writeUInt32BE(data.length, 0)
  b.write(type, 4, 'latin1')
  data.copy(b, 8)
  b.writeUInt32BE(crc32(b.subarray(4, 8 + data.length)), 8 + data.length)
  return b
}
/** An RGB PNG of `w`×`h` (no pixel black), its compressed pixels in IDAT chunks of `piece` bytes. */
async function png(w, h, piece, interlaced) {
  const px = Buffer.alloc(w * h * 3)
  for (let i = 0; i < px.length; i++) px[i] = 40 + ((Math.imul(i, 2654435761) >>> 26) + ((i / 3 / w) | 0) * 3) % 200
  return rechunk(await sharp(px, { raw: { width: w, height: h, channels: 3 } }).png({ progressive: interlaced }).toBuffer(), piece, null)
}
/**
 * `made`'s chunks before its pixels (`extra` after IHDR; `null`: IHDR alone), its pixels in IDAT
 * chunks of `piece` bytes.
 */
function rechunk(made, piece, extra) {
  const before = []
  const pieces = []
  for (let o = 8; o < made.length; ) {
    const len = made.readUInt32BE(o)
    const type = made.toString('latin1', o + 4, o + 8)
    if (type === 'IDAT') pieces.push(made.subarray(o + 8, o + 8 + len))
    else if (type === 'IHDR') before.push(made.subarray(o, o + 12 + len), ...(extra ?? []))
    else if (type !== 'IEND' && extra) before.push(made.subarray(o, o + 12 + len))
    o += 12 + len
  }
  const z = Buffer.concat(pieces)
  const idat = []
  for (let i = 0; i < z.length; i += piece) idat.push(chunk('IDAT', z.subarray(i, i + piece)))
  return Buffer.concat([made.subarray(0, 8), ...before, ...idat, chunk('IEND', Buffer.alloc(0))])
}
/** An `eXIf` chunk holding one field, the orientation (big-endian TIFF). */
function exif(orientation) {
  const b = Buffer.alloc(26)
  b.write('MM', 0, 'latin1')
  b.writeUInt16BE(42, 2)
  b.writeUInt32BE(8, 4)
  b.writeUInt16BE(1, 8)
  b.writeUInt16BE(0x0112, 10)
  b.writeUInt16BE(3, 12)
  b.writeUInt32BE(1, 14)
  b.writeUInt16BE(orientation, 18)
  return chunk('eXIf', b)
}
/**
 * A `w`×`h` PNG of `channels` (1–4) whose left third is opaque, middle third half transparent and
 * right third clear (when it has alpha), colours changing along both sides.
 */
async function bands(w, h, channels, { piece = 40, palette = false, orientation = 0 } = {}) {
  const px = Buffer.alloc(w * h * channels)
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * channels
      const rgb = [210 - x * 5, 50 + y * 9, 90 + ((x * y) & 31)]
      const colours = channels <= 2 ? 1 : 3
      for (let c = 0; c < colours; c++) px[i + c] = rgb[c]
      if (channels === 2 || channels === 4) px[i + channels - 1] = x < w / 3 ? 255 : x < (2 * w) / 3 ? 128 : 0
    }
  }
  const raw = sharp(px, { raw: { width: w, height: h, channels } })
  const made = await (channels <= 2 ? raw.toColourspace('b-w') : raw).png(palette ? { palette: true, colours: 32, dither: 0 } : { adaptiveFiltering: true, compressionLevel: 9 }).toBuffer()
  return rechunk(made, piece, orientation ? [exif(orientation)] : [])
}
/** The first cut inside `bytes`' pixels after half its IDAT chunks are complete. */
function halfway(bytes) {
  const idat = []
  for (let o = 8; o < bytes.length; o += 12 + bytes.readUInt32BE(o)) if (bytes.toString('latin1', o + 4, o + 8) === 'IDAT') idat.push(o)
  return idat[idat.length >> 1] + 10
}
/** What OpenClaw made of `bytes` cut at `cut`: `"kept"`, `{ text }`, or sharp's result decoded. */
async function pixels(name, image, cut, options) {
  const bytes = Buffer.from(images[image], 'base64')
  const data = bytes.subarray(0, cut).toString('base64')
  const [o] = await f([{ type: 'image', data, mimeType: 'image/png' }], LABEL, options)
  const out = o.type === 'text' ? { text: o.text } : o.data === data ? 'kept' : null
  if (out) return { name, image, mimeType: 'image/png', options, cut, out }
  const { data: px, info } = await sharp(Buffer.from(o.data, 'base64')).raw().toBuffer({ resolveWithObject: true })
  return { name, image, mimeType: 'image/png', options, cut, out: { width: info.width, height: info.height, channels: info.channels, px: px.toString('base64') } }
}

const small = await png(40, 30, 512, false)
const shrink = await png(48, 32, 200, false)
const adam7 = await png(24, 16, 150, true)
const SHRINK = { maxDimensionPx: 24 }
const P = { maxDimensionPx: 12 }
const turned = await bands(24, 16, 4, { piece: 30, orientation: 6 })
// The images of `pixels` (base64), each named once.
const images = {}
for (const [name, make] of [
  ['RGBA', () => bands(24, 16, 4)],
  ['grey with alpha', () => bands(24, 16, 2, { piece: 6 })],
  ['palette with tRNS', () => bands(24, 16, 4, { piece: 16, palette: true })],
  ['RGB, orientation 6', () => bands(24, 16, 3, { orientation: 6 })],
  ['RGB, orientation 1', () => bands(24, 16, 3, { orientation: 1 })],
]) images[name] = (await make()).toString('base64')
const whole = (name) => Buffer.from(images[name], 'base64').length
const half = (name) => halfway(Buffer.from(images[name], 'base64'))

async function table(name, mimeType, options, bytes, to) {
  return { name, mimeType, options, data: bytes.toString('base64'), to, cuts: await cuts(bytes, mimeType, options, 1, to) }
}

/**
 * What OpenClaw 2026.9.6 made of the whole images named in `cases` ([name, image]) within
 * `maxDimensionPx`, each the image of a tool result beside Chinese text, decoded like `pixels`.
 */
async function rastermill(cases, maxDimensionPx) {
  const why = missing96()
  if (why !== null) throw new Error(why)
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
  const history = (data) => [
    { role: 'user', content: '看一下这张截图', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call1', name: 'read', arguments: { path: '截图.png' } }], stopReason: 'toolUse', usage, timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call1', toolName: 'read', content: [{ type: 'text', text: '截图：半透明的窗口' }, { type: 'image', data, mimeType: 'image/png' }], isError: false, timestamp: 3 },
  ]
  const policy = { sanitizeMode: 'images-only', sanitizeToolCallIds: false, repairToolUseResultPairing: true }
  const params = { provider: 'ollama', modelApi: 'openai-completions', modelId: 'qwen3:8b', policy, config: { agents: { defaults: { imageMaxDimensionPx: maxDimensionPx } } }, sessionEntries: [] }
  const answers = await runOpenClaw96(cases.map(([, image]) => ['sanitizeSessionHistory', { ...params, messages: history(images[image]) }]))
  const out = []
  for (let i = 0; i < cases.length; i++) {
    const [name, image] = cases[i]
    if (answers[i].error) throw new Error(`${name}: ${answers[i].error}`)
    const content = answers[i].value.find((m) => m.role === 'toolResult').content
    const jpeg = content.find((b) => b.type === 'image' && b.mimeType === 'image/jpeg')
    if (content[0].text !== '截图：半透明的窗口' || !jpeg) throw new Error(`${name}: ${JSON.stringify(content).slice(0, 200)}`)
    const { data: px, info } = await sharp(Buffer.from(jpeg.data, 'base64')).raw().toBuffer({ resolveWithObject: true })
    out.push({ name, image, mimeType: 'image/png', options: { maxDimensionPx }, cut: whole(image), out: { width: info.width, height: info.height, channels: info.channels, px: px.toString('base64') } })
  }
  return out
}

const fixture = {
  recorded: `OpenClaw ${ref.version} sanitizeContentBlocksImages (its sharp ${ocSharp.versions.sharp}, libvips ${ocSharp.versions.vips}), label ${LABEL}; benchmark/sharp-texts.mjs`,
  label: LABEL,
  cases: [
    await table('JPEG 300×200 q90, its header cut at every byte', 'image/jpeg', {}, head, sos + 14),
    await table('the same JPEG to shrink to 100 px', 'image/jpeg', JSHRINK, head, sos + 14),
    await table('the same image as a progressive JPEG to shrink to 100 px', 'image/jpeg', JSHRINK, progHead, progSos + 14),
    await table('PNG 40×30 (within the limits), cut at every byte', 'image/png', {}, small, small.length),
    await table('PNG 48×32 to shrink to 24 px, cut at every byte', 'image/png', SHRINK, shrink, shrink.length),
    await table('PNG 24×16 Adam7 to shrink to 12 px, cut at every byte', 'image/png', { maxDimensionPx: 12 }, adam7, adam7.length),
    await table('PNG 24×16 RGBA with EXIF orientation 6 to shrink to 12 px, cut at every byte', 'image/png', P, turned, turned.length),
  ],
  wrong: [],
  images,
  pixels: [
    await pixels('RGBA 24×16 (opaque, half and clear thirds), whole', 'RGBA', whole('RGBA'), P),
    await pixels('the same RGBA within the limits: kept as written', 'RGBA', whole('RGBA'), {}),
    await pixels('the same RGBA cut in its pixels', 'RGBA', half('RGBA'), P),
    await pixels('grey with alpha, cut in its pixels', 'grey with alpha', half('grey with alpha'), P),
    await pixels('a palette with tRNS, cut in its pixels', 'palette with tRNS', half('palette with tRNS'), P),
    await pixels('RGB with EXIF orientation 6, cut in its pixels', 'RGB, orientation 6', half('RGB, orientation 6'), P),
    await pixels('RGB with EXIF orientation 1 (as stored), cut in its pixels', 'RGB, orientation 1', half('RGB, orientation 1'), P),
  ],
  rastermill: {
    recorded: `OpenClaw ${V96} sanitizeSessionHistory (Rastermill, Photon's JPEG writer), the image beside Chinese text in a tool result; benchmark/sharp-texts.mjs`,
    pixels: await rastermill([
      ['RGBA 24×16 (opaque, half and clear thirds), whole', 'RGBA'],
      ['grey with alpha, whole', 'grey with alpha'],
      ['a palette with tRNS, whole', 'palette with tRNS'],
    ], P.maxDimensionPx),
  },
}
for (const [name, bytes] of Object.entries(wrong)) {
  fixture.wrong.push({ name, mimeType: 'image/jpeg', data: bytes.toString('base64'), outcome: await outcome(bytes, 'image/jpeg', {}) })
}
for (const c of fixture.cases) {
  console.log(`\n${c.name} (${Buffer.from(c.data, 'base64').length} bytes):`)
  for (const [cut, o] of c.cuts) console.log(`  from ${cut}: ${JSON.stringify(o)}`)
}
for (const w of fixture.wrong) console.log(`${w.name}: ${JSON.stringify(w.outcome)}`)
for (const p of fixture.pixels) console.log(`${p.name}, cut at ${p.cut} of ${whole(p.image)}: ${p.out.text ?? (p.out === 'kept' ? 'kept' : `${p.out.width}×${p.out.height}×${p.out.channels}`)}`)
const out = new URL('../__test__/fixtures/sharp-texts.json', import.meta.url)
// One row per line: the diff of a re-recording shows which answers changed.
const json = JSON.stringify(fixture, null, 1).replace(/\[\n\s+(\d+),\n\s+/g, '[$1, ').replace(/\n\s+\](,?)\n/g, ']$1\n')
writeFileSync(out, json)
console.log(`\nwrote ${out.pathname}`)
