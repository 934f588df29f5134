// Differential check of the reply cleaner against another build: generated replies with code
// (inline spans, fences with and without labels, unclosed runs) around markup of several families,
// in Chinese and English, under seven option sets, each cleaned whole and streamed under one random
// chunking by both builds in this process; any difference in content, reasoning, calls, format or
// problems is printed (the first few) and counted. A change meant to keep every output, such as a
// faster code tracker, must print 0 differences.
//   node benchmark/code-differential.mjs <other build> [replies] [seed]
import { createRequire } from 'node:module'
import { resolve } from 'node:path'

const require = createRequire(import.meta.url)
const [otherDir, count = 1500, seed0 = 1] = process.argv.slice(2)
if (!otherDir) {
  console.error('usage: node benchmark/code-differential.mjs <directory of the other build> [replies] [seed]')
  process.exit(2)
}
const A = require(resolve(otherDir, 'index.js'))
const B = require('../index.js')

let seed = Number(seed0)
const rnd = (n) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed % n
}
const pick = (a) => a[rnd(a.length)]
const PROSE = ['这是一个解释。', 'Here is how it writes it:', 'a < b and [1, 2]', 'If x > 3 then { y }.', ' ', '\n', '\n\n', '   ',
  'see [docs](x)', '模型的输出格式如下：', 'functools', '{"name": "search_web", "arguments": {"q": 1}}']
const MARK = ['<think>想</think>', '</think>', '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
  '<minimax:tool_call>\n<invoke name="search_web">\n<parameter name="query">天气</parameter>\n</invoke>\n</minimax:tool_call>',
  '[TOOL_CALLS][{"name": "f", "arguments": {}}]',
  '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
  '[get_weather]\n{"city": "x"}\n[END_TOOL_REQUEST]', '<|channel|>analysis<|message|>hmm<|end|>',
  '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>',
  '<name>search_web\n<parameter=q>x</parameter>\n</function>',
  '<tool_call>\n<function=search_web>\n<parameter=query>北京 天气</parameter>\n</function>\n</tool_call>',
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.search_web:0<|tool_call_argument_begin|>{"query": "天气"}<|tool_call_end|><|tool_calls_section_end|>',
  '<|tool_call_begin|>functions.f:1<|tool_call_argument_begin|>{}<|tool_call_end|>']
const TICKS = ['`', '``', '```', '~~~', '````', ' ```', '    ```', '```  ', '~~~\t']
const LABEL = ['', 'json', 'xml', 'js', 'tool_call', 'python', ' json', 'xml {x}', 'JSON', '\u3000json', 'function call', '{x}']
function reply() {
  let s = ''
  for (let i = 1 + rnd(12); i > 0; i--) {
    switch (rnd(6)) {
      case 0: case 1: s += pick(PROSE); break
      case 2: s += pick(MARK); break
      case 3: {
        const t = pick(['`', '``', '`'])
        s += t + pick([...PROSE, ...MARK]) + (rnd(5) ? t : '')
        break
      }
      case 4: {
        const t = pick(TICKS)
        s += (rnd(3) ? '\n' : '') + t + pick(LABEL) + '\n' + pick([...PROSE, ...MARK]) + '\n' + (rnd(5) ? t.trim() + pick(['', ' ', 'x', '`']) + '\n' : '')
        break
      }
      default: s += pick(TICKS)
    }
  }
  return s
}
const TOOLS = [{ type: 'function', function: { name: 'search_web', parameters: {} } }, { type: 'function', function: { name: 'f', parameters: {} } }]
const OPTIONS = [{}, { model: 'MiniMax-M2' }, { tools: TOOLS }, { model: 'deepseek-r1' }, { format: 'hermes' }, { model: 'qwen3-coder' }, { toolCalls: 'keep' }]
function streamed(lib, text, opts, cuts) {
  const s = new lib.ResponseStreamCleaner(opts)
  let content = ''
  let reasoning = ''
  const calls = []
  let at = 0
  for (const c of [...cuts, text.length]) {
    const r = s.push(text.slice(at, c))
    content += r.content
    reasoning += r.reasoning
    calls.push(...r.toolCalls)
    at = c
  }
  const e = s.finish()
  return JSON.stringify({ content: content + e.content, reasoning: reasoning + e.reasoning, calls: [...calls, ...e.toolCalls], format: e.format, problems: e.problems })
}
let differences = 0
let checked = 0
const show = (what, text, o, a, b) => {
  if (++differences <= 4) console.log(what, JSON.stringify(text), JSON.stringify(o), '\n ', a, '\n ', b)
}
for (let k = 0; k < Number(count); k++) {
  const text = reply()
  for (const o of OPTIONS) {
    checked++
    const a = JSON.stringify(A.cleanResponse(text, o))
    const b = JSON.stringify(B.cleanResponse(text, o))
    if (a !== b) show('whole:', text, o, a, b)
    const cuts = []
    const step = 1 + rnd(7)
    for (let c = step; c < text.length; c += 1 + rnd(step * 2)) cuts.push(c)
    const sa = streamed(A, text, o, cuts)
    const sb = streamed(B, text, o, cuts)
    if (sa !== sb) show('streamed:', text, o, sa, sb)
  }
}
console.log(`${checked} replies (${count} texts x ${OPTIONS.length} option sets), whole and streamed: ${differences} differences`)
