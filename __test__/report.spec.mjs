// A report that says something changed comes with a result that differs from the input: a rule
// that rebuilds a value to what it already was (usage copied field by field, an id rewritten to
// itself) reports a change that did not happen and copies a message the caller gets back as new.
// Each case is a transcript, run under every provider family, with and without the change.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, toolResult, text, thinking } from './fixtures/helpers.mjs'

// OpenClaw 2026.3.23-2's pass: pinned, whatever the package default (2026.9.6) is.
th.setOpenClawVersion('2026.3.23')

const POLICIES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  openai: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5.2' },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large' },
}

const usage = { input: 5, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 8, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

const CASES = {
  'a clean turn with standard usage': [user('读一下 a.txt'), assistant([toolCall('call1')], { stopReason: 'toolUse', usage }), toolResult('call1', '内容'), assistant([text('好的')], { usage })],
  'usage with extra fields (cacheWrite1h, reasoning)': [user('q'), assistant([text('答')], { usage: { ...usage, cacheWrite1h: 4, reasoning: 2 } })],
  'ids to sanitise and a thinking block': [user('q'), assistant([thinking('想', 'sig'), toolCall('call_1|fc_1')], { stopReason: 'toolUse', usage }), toolResult('call_1|fc_1')],
  'a missing result': [user('q'), assistant([toolCall('c9')], { stopReason: 'toolUse', usage }), user('还在吗')],
  'an assistant first': [assistant([text('你好')], { usage }), user('hi')],
}

for (const [name, messages] of Object.entries(CASES)) {
  test(`a reported change is a change: ${name}`, () => {
    for (const [policy, p] of Object.entries(POLICIES)) {
      const r = th.sanitizeSessionHistory({ messages, ...p, report: true })
      const plain = th.sanitizeSessionHistory({ messages, ...p })
      assert.deepEqual(r.messages, plain, `${policy}: the report does not change the result`)
      const same = r.messages.length === messages.length && r.messages.every((m, i) => m === messages[i])
      if (r.changes.length > 0) assert.notDeepEqual(r.messages, messages, `${policy}: ${JSON.stringify(r.changes)} reported, nothing changed`)
      else assert.ok(same, `${policy}: nothing reported, yet a message was copied`)
    }
  })
}
