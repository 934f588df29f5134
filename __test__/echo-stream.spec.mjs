// ConversationContextStreamCleaner's JS side: surrogate pairs split across deltas, lone
// surrogates kept, the stream's end, bad arguments, and the whole reply's result for replies
// whose only change is the prompt's copy (openclaw96-parity.spec.mjs checks the rest against
// OpenClaw 2026.9.6; the Rust tests check every chunking and the linear cost).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const th = require('../index.js')

const PROMPT = '[Chat messages since your last reply - for context]\nAlice: 明天开会吗？😀\n\n[Current message - respond to this]\nAlice: 会议室在哪？'
const OPTIONS = { conversationContext: PROMPT, openclawVersion: '2026.9.6' }

function stream(reply, size) {
  const s = new th.ConversationContextStreamCleaner(OPTIONS)
  let out = ''
  for (let i = 0; i < reply.length; i += size) out += s.push(reply.slice(i, i + size))
  return out + s.finish()
}

// (reply, what the stream gives for it): a copy at the start, quoted in the middle, a near-copy
// that stays, a lone surrogate kept.
const CASES = [
  [`${PROMPT}\n\n在三楼。😀`, '\n\n在三楼。😀'],
  [`好的。\n${PROMPT.replace(/^/gm, '> ')}\n\n在三楼。`, '好的。\n\n\n在三楼。'],
  [`${PROMPT.replace('会议室', '会议')}\n在三楼。`, `${PROMPT.replace('会议室', '会议')}\n在三楼。`],
  ['在三楼。\ud83d', '在三楼。\ud83d'],
]

test('every chunking (inside surrogate pairs too) gives the whole reply without the copies', () => {
  for (const [reply, want] of CASES) {
    for (const size of [1, 2, 3, 5, reply.length]) assert.equal(stream(reply, size), want, `${JSON.stringify(reply)} by ${size}`)
  }
})

test("where the copy is the only change, the stream gives sanitizeUserFacingText's whole result", () => {
  const reply = `好的。\n${PROMPT}\n会议室在三楼。`
  assert.equal(stream(reply, 3), '好的。\n\n会议室在三楼。')
  assert.equal(stream(reply, 3), th.sanitizeUserFacingText(reply, OPTIONS))
})

test('a stream ends once; bad arguments are TypeErrors naming them', () => {
  const s = new th.ConversationContextStreamCleaner(OPTIONS)
  assert.equal(s.push('在三楼。'), '在三楼。')
  assert.equal(s.finish(), '')
  assert.throws(() => s.push('x'), /the stream is finished/)
  assert.throws(() => s.finish(), /the stream is finished/)
  assert.throws(() => new th.ConversationContextStreamCleaner({ conversationContext: 1 }), (e) => e instanceof TypeError && /options\.conversationContext/.test(e.message))
  assert.throws(() => new th.ConversationContextStreamCleaner(OPTIONS).push(1), (e) => e instanceof TypeError && /delta/.test(e.message))
  // Without a prompt (or one without chat context) every delta goes as it comes.
  assert.equal(new th.ConversationContextStreamCleaner().push('[Current message - re'), '[Current message - re')
})
