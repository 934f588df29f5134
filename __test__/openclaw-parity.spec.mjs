// Differential test of the four outbound scrubbers against OpenClaw's own functions, when an
// unpacked openclaw 2026.3.23-2 package is available (it is not vendored here):
//   cd /tmp && mkdir -p ocpkg && cd ocpkg && npm pack openclaw@2026.3.23-2 && tar xzf openclaw-*.tgz
//   OPENCLAW_DIST=/tmp/ocpkg/package/dist node --test __test__/openclaw-parity.spec.mjs
// The functions are loaded at run time from the bundle's source regions; random replies built from
// marker fragments (tags in any case, code fences, JSON-ish arguments, lone surrogates, multi-byte
// and whitespace characters) must give identical output. Skipped when the bundle is absent.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const DIST = process.env.OPENCLAW_DIST ?? '/tmp/ocpkg/package/dist'

/** The text between `start` and `end` in the first bundle file that has both. */
function region(start, end) {
  for (const f of readdirSync(DIST).filter((n) => n.endsWith('.js'))) {
    const src = readFileSync(join(DIST, f), 'utf8')
    const a = src.indexOf(start)
    const b = a < 0 ? -1 : src.indexOf(end, a)
    if (b > a) return src.slice(a, b)
  }
  return null
}

function loadOpenClaw() {
  if (!existsSync(DIST)) return null
  const reasoning = region('//#region src/shared/text/code-regions.ts', '//#region src/shared/string-sample.ts')
  const scrubbers = region('function stripMinimaxToolCallXml(', 'function stripThinkingTagsFromText(')
  if (!reasoning || !scrubbers) return null
  // eslint-disable-next-line no-new-func
  return new Function(`${reasoning}\n${scrubbers}\nreturn { stripReasoningTagsFromText, stripMinimaxToolCallXml, stripModelSpecialTokens, stripDowngradedToolCallText }`)()
}

const FRAGMENTS = [
  '<think>', '</think>', '<thinking>', '</thinking >', '< think>', '</ THOUGHT>', '<antthinking a="b">', '<final>', '</final>', '< final x>', '<Final', '<thinkx>', '<thinké>',
  '<minimax:tool_call>', '</minimax:tool_call>', '<MINIMAX:TOOL_CALL>', 'minimax:tool_call', '<invoke name="f">', '<invoke>', '<INVOKE', '</invoke>', '</Invoke>', '<invoker>', '<parameter name="p">',
  '<|assistant|>', '<|', '|>', '<｜', '｜>', '<｜begin▁of▁sentence｜>', '  ', '   ', ' ', '\t',
  '[Tool Call: f (ID: 1)]', '[tool call:', ']', '[', 'Arguments: ', 'arguments:', 'ARGUMENTS', '{', '}', '[1,', '"', '\\', '[Tool Result for ID 1]', '[TOOL RESULT FOR ID', '[Tool ', '[tool x', '[Historical context: x]', '[historical context:',
  '```', '```js', '~~~', '`', '``', '\n', '\r', '\r\n', '\n\n', 'a', 'bc', '北京', '😀', '\u00a0', '\u2028', '\ufeff', '\u0085', '\u3000', 'x y', '\uD800', '\uDC00', '<', '>', '/', ':',
]

test('the scrubbers match openclaw 2026.3.23-2 on random marker-built replies', (t) => {
  const oc = loadOpenClaw()
  if (!oc) {
    t.skip(`no unpacked openclaw bundle at ${DIST}`)
    return
  }
  let seed = 20260323
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % n
  }
  const pairs = [
    ['stripMinimaxToolCallXml', oc.stripMinimaxToolCallXml, th.stripMinimaxToolCallXml],
    ['stripModelSpecialTokens', oc.stripModelSpecialTokens, th.stripModelSpecialTokens],
    ['stripDowngradedToolCallText', oc.stripDowngradedToolCallText, th.stripDowngradedToolCallText],
    ['stripThinkingTagsFromText', (s) => oc.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'both' }), (s) => th.stripThinkingTagsFromText(s)],
    ['preserve/none', (s) => oc.stripReasoningTagsFromText(s, { mode: 'preserve', trim: 'none' }), (s) => th.stripReasoningTagsFromText(s, { mode: 'preserve', trim: 'none' })],
    ['strict/start', (s) => oc.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'start' }), (s) => th.stripReasoningTagsFromText(s, { mode: 'strict', trim: 'start' })],
  ]
  for (let i = 0; i < 20_000; i++) {
    let s = ''
    for (let k = rnd(30); k > 0; k--) s += FRAGMENTS[rnd(FRAGMENTS.length)]
    for (const [name, theirs, ours] of pairs) assert.equal(ours(s), theirs(s), `${name}(${JSON.stringify(s)})`)
  }
})
