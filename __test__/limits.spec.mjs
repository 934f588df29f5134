// Resource limits of the text entry points (docs/API.md, "Limits"): the largest inputs run once each
// in a child process (fixtures/limits-child.mjs) and must give a result or a clear Error — never a
// crash, a hang or an abort. A crash shows as the child dying, which is checked first.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { nodeChild } from './fixtures/helpers.mjs'
import { fileURLToPath } from 'node:url'

const child = fileURLToPath(new URL('./fixtures/limits-child.mjs', import.meta.url))

// case → its outcome, as data.
const EXPECTED = {
  'cleanResponse: a 100 MiB reply ending in a tool call': 'returned: 1 tool call, 104857600 chars of content',
  'sanitizeSessionHistory: 2 × 100 MiB of Chinese text': 'returned: 2 messages, text kept: true',
  'stripThoughtSignatures: 1,000,000 blocks': 'returned: 1000000 blocks, signatures left: 0',
  'sanitizeSessionHistory: tool-call arguments nested 10,000 deep': 'returned: 3 messages, arguments kept: true',
  'cleanResponse: tool-call JSON nested 10,000 deep': 'returned: 1 tool calls, 1 problems, 0 chars of content',
  // JSON.stringify of the input overflows V8's stack: a TypeError naming the input.
  'toOpenAiMessages: tool input nested 10,000 deep': 'TypeError: history[0].content[0].input: could not be serialised as JSON (Maximum call stack size exceeded)',
  'recoverToolBlocks: flattened call with JSON nested 10,000 deep': 'returned: 0 recovered',
}

test('100 MiB strings, 1,000,000-element arrays and 10,000-level nesting: a result or a clear error, never a crash', { timeout: 180_000 }, async (t) => {
  const r = await nodeChild([child])
  assert.equal(r.signal, null, `the child died of ${r.signal}: ${r.stderr.slice(-2000)}`)
  assert.equal(r.code, 0, r.stderr.slice(-2000))
  const out = JSON.parse(r.stdout)
  for (const [name, v] of Object.entries(out)) t.diagnostic(`${name}: ${v.ms} ms, peak RSS ${v.peakMiB} MiB`)
  assert.deepEqual(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.outcome])), EXPECTED)
})
