// What each vitest file checks, with its own number n: the package loaded in that file's worker.
import { createRequire } from 'node:module'
import { expect, test } from 'vitest'

const th = createRequire(import.meta.url)('../../index.js')

export function cases(n) {
  test(`a reply with a MiniMax call, file ${n}`, () => {
    const r = th.cleanResponse(`好的。<minimax:tool_call><invoke name="read"><parameter name="path">${n}.txt</parameter></invoke></minimax:tool_call>`)
    expect(r.content).toBe('好的。')
    expect(JSON.parse(r.toolCalls[0].function.arguments)).toEqual({ path: `${n}.txt` })
  })
  test(`a transcript pass and a stream, file ${n}`, () => {
    const messages = [{ role: 'user', content: 'read it' }, { role: 'assistant', content: [{ type: 'toolCall', id: `call_${n}|fc`, name: 'read', arguments: {} }], stopReason: 'toolUse' }]
    const out = th.sanitizeSessionHistory({ provider: 'mistral', modelApi: 'openai-completions', messages, openclawVersion: '2026.3.23' }) // Mistral's 9 characters: 2026.3.23's policy
    expect(out[1].content[0].id).toMatch(/^[a-zA-Z0-9]{9}$/)
    expect(out[2].toolCallId).toBe(out[1].content[0].id)
    const s = new th.ResponseStreamCleaner()
    const first = s.push('<think>x</think>hi ')
    expect(first.content + s.finish().content).toBe('hi ')
    expect(first.reasoning).toBe('x')
  })
}
