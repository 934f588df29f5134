// Dumps skeletons for examples/transcript_rate.rs (`node benchmark/dump-skeleton.mjs [dir]`, default
// /tmp): the benchmark transcript of n messages, and the suffix a turn appending 4 messages to it
// sends (from the session's cut on), and both as the 2026.9.6 pass reads them. A diagnostic, not part of `npm run bench`.
import { createRequire } from 'node:module'
import fs from 'node:fs'
const require = createRequire(import.meta.url)
const out = process.argv[2] || '/tmp'
const codec = require('../js/codec.js')
const { Session } = require('../js/transcript-session.js')
const { toJson } = require('../js/args.js')
const { makeTranscript } = await import(new URL('../../shared/bench/transcript-gen.mjs', import.meta.url))
const POLICY = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }
const write = (name, { codes, reals, strs }) => {
  fs.writeFileSync(`${out}/${name}.u32`, Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength))
  fs.writeFileSync(`${out}/${name}.f64`, Buffer.from(reals.buffer, reals.byteOffset, reals.byteLength))
  fs.writeFileSync(`${out}/${name}.txt`, strs)
}
for (const n of [1000, 10000]) {
  const all = makeTranscript(n + 4)
  const history = all.slice(0, n)
  write(`skel-${n}`, codec.encode(history))
  // With the fields only OpenClaw 2026.9.6's pass reads (examples/transcript_rate.rs `2026.9.6`).
  write(`skel96-${n}`, codec.encode(history, 'messages', true))
  // The suffix after each release's cut (each session pinned to its release).
  for (const [version, name, v96] of [['2026.3.23', 'suffix', false], ['2026.9.6', 'suffix96', true]]) {
    const o = { ...POLICY, openclawVersion: version }
    const s = new Session(toJson(o, 'params'))
    s.sanitize(history, o, null, 0)
    const cut = s.seen.length
    write(`${name}-${n}`, codec.encode(all.slice(cut), 'messages', v96))
    console.log(n, version, 'cut', cut)
  }
}
