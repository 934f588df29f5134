// First-pass cost of a JPEG whose scan lies past the head the codec sends first, in 2026.3.23 mode
// (sharp's metadata reads every marker up to the scan): a 1200×900 JPEG within the limits, with a
// SEG-byte APP2 segment before its frame or a comment between frame and scan, against the same
// JPEG without one. Median µs of 41 calls, image cache cleared each time, for each build given
// (index.js paths; default this checkout's):
//   SEG=60000 node benchmark/jpeg-far-header.mjs ../index.js /work/base-66e3cb0/index.js
import { createRequire } from 'node:module'
import { resolve } from 'node:path'

const require = createRequire(import.meta.url)
let sharp
try {
  sharp = require('sharp')
} catch {
  console.log('benchmark/jpeg-far-header.mjs: sharp (a devDependency of benchmark/) makes the JPEG; run `npm install` in benchmark/ first.')
  process.exit(0)
}
const SEG = Number(process.env.SEG ?? 60000)
const builds = process.argv.length > 2 ? process.argv.slice(2) : ['../index.js']
const raw = Buffer.alloc(1200 * 900 * 3)
let s = 1
for (let i = 0; i < raw.length; i++) {
  s = (Math.imul(s, 1664525) + 1013904223) >>> 0
  raw[i] = (i & 255) ^ (s >>> 29)
}
const jpg = await sharp(raw, { raw: { width: 1200, height: 900, channels: 3 } }).jpeg({ quality: 92 }).toBuffer()
const segment = (marker, text) => {
  const b = Buffer.alloc(4 + SEG)
  b[0] = 0xff
  b[1] = marker
  b.writeUInt16BE(SEG + 2, 2)
  Buffer.from(text).copy(b, 4)
  return b
}
const sofEnd = jpg.findIndex((b, i) => b === 0xff && jpg[i + 1] === 0xc0) + 19
const cases = [
  [`APP2 of ${SEG} bytes before the frame`, Buffer.concat([jpg.subarray(0, 2), segment(0xe2, '截图的色彩配置'), jpg.subarray(2)])],
  [`comment of ${SEG} bytes between frame and scan`, Buffer.concat([jpg.subarray(0, sofEnd), segment(0xfe, '截图的说明'), jpg.subarray(sofEnd)])],
  ['no segment', jpg],
]
const ths = builds.map((b) => {
  const th = require(resolve(process.cwd(), b))
  th.setOpenClawVersion('2026.3.23')
  return th
})
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
console.log(`| JPEG | bytes | ${builds.join(' µs | ')} µs |`)
console.log(`| --- | --- |${builds.map(() => ' --- |').join('')}`)
for (const [name, buf] of cases) {
  const data = buf.toString('base64')
  const row = [name, `${(buf.length / 1024).toFixed(0)} KB`]
  for (const th of ths) {
    const times = []
    for (let r = 0; r < 41; r++) {
      th.clearImageCache()
      const t0 = process.hrtime.bigint()
      const [o] = th.sanitizeContentBlocksImages([{ type: 'image', data, mimeType: 'image/jpeg' }], '读取:截图')
      times.push(Number(process.hrtime.bigint() - t0) / 1e3)
      if (o.data !== data) throw new Error(`not kept: ${JSON.stringify(o).slice(0, 200)}`)
    }
    row.push(median(times).toFixed(0))
  }
  console.log(`| ${row.join(' | ')} |`)
}
