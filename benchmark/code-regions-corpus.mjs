// Writes __test__/fixtures/code-regions/openclaw-2026.9.6.jsonl: generated Markdown and the code
// regions OpenClaw 2026.9.6's own `findCodeRegions` (micromark, GFM tables, raw HTML off) finds
// in it, as UTF-8 byte offsets `[start, end, block]`. The Rust test
// `scrub::visible::commonmark::oracle` checks this package's linear scanner against every line.
//
// Texts appended to the file after the generated ones (found to differ once: a larger corpus of
// another seed, with their twins) are kept when it is written again.
//
//   node benchmark/code-regions-corpus.mjs [count] [seed] [out]   (needs openclaw 2026.9.6 and a Node 24)
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { rng } from '../__test__/fixtures/helpers.mjs'
import { runOpenClaw96, missing } from './openclaw-2026.9.6.mjs'

/** Markdown pieces that decide code: containers, fences, indentation, tables, links, CJK. */
export const FRAGMENTS = [
  '`', '``', '```', '````', '~~~', '```js', '~~~ x`', '\\`', '\\', '<', '>', '> ', '>>', '<http://a`b>', '<a`b@c.d>',
  '-', '- ', '* ', '+ ', '1. ', '2) ', '10. ', '1234567890. ', '*', '---', '***', '===', '#', '# ', '###### ', '####### ',
  '|', '| a |', '| - |', '|---|', ':-', ' | ', '\\|', '|:-:|', '    ', '  ', ' ', '\t', ' \t', '\n', '\n', '\n', '\n\n',
  '\r\n', '\r', 'a', 'word', '北京', '好的，', '😀', '<think>', '</think>', '<|im_end|>', '[', ']', '(', ')', '![', 'x y',
  '[a](`b`)', '[a](<`b`> "`t`")', '![i](`x`)', '[a]: `x`\n', '[a]:\n`x`\n', '[`a`]: /u "`t`"\n', '[a](b `c`)',
]

export function corpus(count, seed) {
  const rand = rng(seed)
  const out = []
  for (let i = 0; i < count; i++) {
    let s = ''
    for (let k = Math.floor(rand() * 32); k > 0; k--) s += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)]
    out.push(s)
  }
  return out
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const why = missing()
  if (why !== null) throw new Error(why)
  const [count = 3000, seed = 2026906, file = new URL('../__test__/fixtures/code-regions/openclaw-2026.9.6.jsonl', import.meta.url)] = process.argv.slice(2)
  const texts = corpus(Number(count), Number(seed))
  const answers = await runOpenClaw96(texts.map((t) => ['findCodeRegions', t]))
  const bytes = (t, o) => Buffer.byteLength(t.slice(0, o))
  const lines = texts.map((text, i) => {
    const { value, error } = answers[i]
    if (error !== undefined) throw new Error(`findCodeRegions(${JSON.stringify(text)}) threw: ${error}`)
    return JSON.stringify({ text, regions: value.map((r) => [bytes(text, r.start), bytes(text, r.end), r.block]) })
  })
  const kept = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(Number(count)) : []
  writeFileSync(file, [...lines, ...kept].join('\n') + '\n')
  console.log(`${lines.length} texts, ${answers.reduce((n, a) => n + a.value.length, 0)} regions -> ${file}`)
}
