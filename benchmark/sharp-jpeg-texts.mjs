// Records what OpenClaw 2026.3.23-2 (sharp, libvips, libjpeg-turbo) says of a JPEG whose header
// does not read: the text of `sanitizeContentBlocksImages` for a 300×200 JPEG cut at every byte
// of its header (one line per change of text), then for headers made wrong one field at a time.
// src/image/libjpeg_header/tests.rs holds these answers; rerun this when the reference changes:
//   node benchmark/sharp-jpeg-texts.mjs
import { createRequire } from 'node:module'
import { loadOpenClaw, installHint } from './openclaw.mjs'

const require = createRequire(import.meta.url)
const ref = await loadOpenClaw({ names: ['sanitizeContentBlocksImages'] })
if (ref === null) {
  console.log(installHint())
  process.exit(0)
}
const sharp = require('sharp')
const f = ref.fns.sanitizeContentBlocksImages
const raw = Buffer.alloc(300 * 200 * 3)
for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) & 255
const jpg = await sharp(raw, { raw: { width: 300, height: 200, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
const at = (m) => jpg.findIndex((b, i) => i >= 2 && b === 0xff && jpg[i + 1] === m)
const [dqt, sof, dht, sos] = [at(0xdb), at(0xc0), at(0xc4), at(0xda)]
console.log(`sharp ${require('sharp/package.json').version}; DQT ${dqt}, SOF0 ${sof}, DHT ${dht}, SOS ${sos}`)
console.log('head (base64):', jpg.subarray(0, sos + 20).toString('base64'))

async function text(bytes) {
  const [o] = await f([{ type: 'image', data: bytes.toString('base64'), mimeType: 'image/jpeg' }], 'read')
  return o.type === 'text' ? o.text : 'kept'
}

let last = null
for (let cut = 1; cut <= sos + 12; cut++) {
  const t = await text(jpg.subarray(0, cut))
  if (t !== last) console.log(`cut at ${cut}: ${JSON.stringify(t)}`)
  last = t
}
const set = (fields) => {
  const b = Buffer.from(jpg)
  for (const [i, v] of fields) b[i] = v
  return b
}
const splice = (i, bytes) => Buffer.concat([jpg.subarray(0, i), Buffer.from(bytes), jpg.subarray(i)])
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
  'DQT length + 1': set([[dqt + 3, jpg[dqt + 3] + 1]]),
  'DRI length 5': splice(sos, [0xff, 0xdd, 0, 5, 0, 0]),
  'two SOI': splice(2, [0xff, 0xd8]),
  'two SOF': splice(sos, jpg.subarray(sof, sof + 19)),
  'SOS component 9': set([[sos + 5, 9]]),
  'SOS 5 components': set([[sos + 4, 5]]),
  'bytes before a marker': splice(2, [1, 2, 3]),
  'precision 12': set([[sof + 4, 12]]),
  'DAC index 40': splice(sos, [0xff, 0xcc, 0, 4, 40, 0x10]),
  'DAC value 0x1f': splice(sos, [0xff, 0xcc, 0, 4, 1, 0x1f]),
}
for (const [name, bytes] of Object.entries(wrong)) console.log(`${name}: ${JSON.stringify(await text(bytes))}`)
