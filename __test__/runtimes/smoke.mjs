// The smoke suite one runtime runs against the installed package (in the fresh project
// fixtures/pack.mjs made): the ES module and CommonJS entries, every export (every-export.cjs),
// and a streamed Chinese reply under several chunkings. Prints one JSON summary; run.mjs compares
// it with the same script's summary on the machine's Node.
import * as esm from 'transcript-hygiene'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const cjs = require('transcript-hygiene')
const { callEvery } = require('./every-export.cjs')

const REPLY = '<think>用户想知道天气，我需要调用工具。</think>好的，我来查一下北京和上海的天气。<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">北京</parameter>\n</invoke>\n<invoke name="get_weather">\n<parameter name="city">上海</parameter>\n</invoke>\n</minimax:tool_call>稍等😀'

function streamed(size) {
  const s = new esm.ResponseStreamCleaner({ model: 'minimax/MiniMax-M2' })
  const out = { content: '', reasoning: '', toolCalls: [] }
  const add = (r) => {
    out.content += r.content
    out.reasoning += r.reasoning
    out.toolCalls.push(...r.toolCalls)
  }
  for (let i = 0; i < REPLY.length; i += size) add(s.push(REPLY.slice(i, i + size)))
  add(s.finish())
  return out
}

const { default: _default, ...named } = esm
const whole = esm.cleanResponse(REPLY, { model: 'minimax/MiniMax-M2' })
const chunkings = [1, 2, 3, 7, 64].map(streamed)
console.log(
  JSON.stringify({
    sameFunctions: Object.keys(named).every((k) => named[k] === cjs[k]) && _default === cjs,
    names: Object.keys(named).sort(),
    every: callEvery(cjs),
    whole: { content: whole.content, reasoning: whole.reasoning, toolCalls: whole.toolCalls },
    streamedEqualsWhole: chunkings.every((c) => JSON.stringify(c) === JSON.stringify({ content: whole.content, reasoning: whole.reasoning, toolCalls: whole.toolCalls })),
  }),
)
