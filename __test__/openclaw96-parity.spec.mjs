// The OpenClaw 2026.9.6 oracle: this package's 2026.9.6 reply scrubbers against OpenClaw
// 2026.9.6's own functions (benchmark/openclaw-2026.9.6.mjs: loaded in this process on Node
// >= 24.16, else in one Node 24 child for the whole batch). Every case runs through each scrubber
// on both sides and must give the same string:
//   - hand-written cases (Chinese included), each marker with a twin in code that must stay;
//   - the reply-case table's inputs (__test__/fixtures/replies/*.jsonl);
//   - random replies built from marker fragments (code fences, spans, indented blocks, lists,
//     quotes, tabs, CJK, surrogate pairs).
// Without openclaw 2026.9.6 (scripts/install-reference.sh) or a Node 24 binary (scripts/runtimes.sh)
// the test skips and says what to install.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync, readdirSync } from 'node:fs'
import { rng } from './fixtures/helpers.mjs'
import { runOpenClaw96, missing } from '../benchmark/openclaw-2026.9.6.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')

const V96 = { openclawVersion: '2026.9.6' }
const DELIVERY_XML = { stripFunctionResponseAfterPluralToolCalls: true }
const PROGRESS_XML = { stripFunctionCallsXmlPayloads: true }
// Anthropic's namespaced tag names, spelled out of pieces.
const NS = 'antml' + ':'
/** Each scrubber: its OpenClaw name, this package's call in 2026.9.6 mode, OpenClaw's options. */
const SCRUBBERS = [
  ['stripModelSpecialTokens', (s) => th.stripModelSpecialTokens(s, V96)],
  ['stripMinimaxToolCallXml', (s) => th.stripMinimaxToolCallXml(s, V96)],
  ['stripDowngradedToolCallText', (s) => th.stripDowngradedToolCallText(s, V96)],
  ['stripRelevantMemoriesTags', (s) => th.stripRelevantMemoriesTags(s)],
  ['stripAssistantInternalTraceLines', (s) => th.stripAssistantInternalTraceLines(s)],
  ['stripLegacyBracketToolCallBlocks', (s) => th.stripLegacyBracketToolCallBlocks(s)],
  ['stripToolCallXmlTags', (s) => th.stripToolCallXmlTags(s)],
  ['stripToolCallXmlTags', (s) => th.stripToolCallXmlTags(s, DELIVERY_XML), DELIVERY_XML],
  ['stripToolCallXmlTags', (s) => th.stripToolCallXmlTags(s, PROGRESS_XML), PROGRESS_XML],
  ['stripReasoningTagsFromText', (s) => th.stripReasoningTagsFromText(s, V96)],
  ['stripReasoningTagsFromText', (s) => th.stripReasoningTagsFromText(s, { ...V96, mode: 'preserve', trim: 'none' }), { mode: 'preserve', trim: 'none' }],
  ['stripReasoningTagsFromText', (s) => th.stripReasoningTagsFromText(s, { ...V96, trim: 'start', scope: 'leading' }), { trim: 'start', scope: 'leading' }],
  ['stripReasoningTagsFromText', (s) => th.stripReasoningTagsFromText(s, { ...V96, recoverUnclosed: false }), { recoverUnclosed: false }],
]

const HAND = [
  // special tokens: removed, a space only between two words, code kept
  '好的<|im_end|>，我明白了。',
  '好的`<|im_end|>`，代码里的保留',
  '<|im_start|>assistant\n你好<|im_end|>',
  'done<|end|>next and done<|end|> next and 1<|x|>2',
  '<｜begin▁of▁sentence｜>北京<｜end▁of▁sentence｜>上海',
  '```\n<|im_start|>system\n```\nafter<|eot_id|>',
  '    <|indented code|>\n\npara<|t|>',
  'é<|t|>\u0301x and 😀<|t|>😀',
  // memories
  '<relevant-memories>\n- 用户喜欢喝茶\n</relevant-memories>\n好的，给你推荐绿茶。',
  'Intro <RELEVANT_MEMORIES data-x="1">secret</relevant_memories > outro',
  'Use the `<relevant-memories>` tag to inject memories.',
  '```xml\n<relevant-memories>example</relevant-memories>\n```',
  'a</relevant-memories>b<relevant-memories>unclosed',
  '<relevant-memoriesx>not a tag</relevant-memoriesx>',
  // trace lines
  '🛠️ Exec: ls -la\n文件如下：\n- a.txt',
  '> 📖 Read: README.md\nThe README says hi.',
  '⚠️ 🛠️ Exec failed (exit 127)\n命令不存在。',
  '⚠️ 🛠️ deploy-bot (agent)`` failed: timeout\nok',
  '🛠️ elevated · git push origin main\n推送完成',
  'tool_call: {"name":"read"}\nFunction Call = x\nThe tool call failed, so I retried.',
  '```\n🛠️ Exec: ls\n```\n🛠️ Exec: pwd',
  '我用 🛠️ Exec: 运行了命令\n📖 Reading list: three books',
  'line\r\n🛠️ Exec: a\r\nnext\r\n',
  // legacy bracket blocks
  '好的[TOOL_CALL]{tool => "read", args => {"path":"a.md"}}[/TOOL_CALL]，已读取',
  '[TOOL_RESULT]{"ok":true}[/TOOL_RESULT] done',
  '[tool_call]{tool => \'exec\', args => {"cmd":"ls"}}',
  '[TOOL_CALL] please run the tests [/TOOL_CALL]',
  '`[TOOL_CALL]{tool => "x", args => {}}[/TOOL_CALL]`',
  '[TOOL_CALL]{tool => "x", args => {}}`[/TOOL_CALL]` tail',
  '[TOOL_RESULT] output: 3 [/TOOL_RESULT][TOOL_RESULT] nothing [/TOOL_RESULT]',
  // reasoning tags: new names, nesting, orphan close, unclosed recovery, <internal>, <final>
  '<think>先查一下北京的天气。</think>北京今天晴。',
  '用户想知道天气</think>北京今天晴。',
  '</think>北京今天晴。',
  '<think>还在推理，没有闭合',
  '答案是 42。<think>后面的推理没有闭合',
  '<think>a<think>b</think>c</think>d',
  '<thinking data="a>b">x</thinking>y <REASONING>r</reasoning>z',
  '<thinking>x</thinking>ok <mm:think>y</mm:think>!',
  '<internal>secret plan</internal>visible <internal>unclosed secret',
  '<final>最终答案</final>',
  '<finally> and <final-answer> stay, <final x="1"/> goes',
  'Use `<think>` to reason.\n```\n<think>in a fence</think>\n```\n<think>real</think>done',
  '    <think>indented code</think>\n\n<think>x</think>after',
  '<thinker>not a tag</thinker> <think/> self-closing',
  'a</think>b</think>c',
  '  <think>x</think>  spaced answer  ',
  // MiniMax and downgraded tool-call text
  '查询天气<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">北京</parameter>\n</invoke>\n</minimax:tool_call>',
  'a]<]minimax[>[<tool_call><invoke name="x"></invoke>]<]minimax[>[</tool_call>b minimax:tool_call',
  ']<]minimax[>[<tool_call>`code`]<]minimax[>[</tool_call>rest',
  '`<minimax:tool_call>` in code, <MINIMAX:TOOL_CALL> outside',
  '<invoke name="x">unclosed minimax:tool_call',
  '[Tool Call: read (ID: toolu_1)]\nArguments: {"path": "a.md"}\n读完了。',
  '前文\n[Tool Call: exec]\nArguments: "ls -la"\n[Tool Result for ID toolu_1]\nfile.txt\n\n[Tool Call: next]\n后文',
  '[Historical context: earlier turns]\n继续。\n`[Tool Call: x]` stays',
  '\n\n    indented code first\n[Tool Call: f]\n  ',
  '[tool call: lower]arguments:[1,[2]]tail',
  // tool-call XML
  '好的，我来查。\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "北京"}}\n</tool_call>',
  '<tool_call>{"name":"read","arguments":{"path":"a</tool_call>b"}}</tool_call>after',
  'Hermes uses <tool_call> tags; `<tool_call>{}</tool_call>` in code stays.',
  '```json\n<tool_call>{"name":"x"}</tool_call>\n```\n<tool_call>{"name":"y"}</tool_call>',
  'Sure.\n<function_calls>\n<invoke name="search">\n<parameter name="q">天气</parameter>\n</invoke>\n</function_calls>\n<function_response>{"ok":1}</function_response>\nDone.',
  `<function_calls>\n<${NS}invoke name="x">\n<${NS}parameter name="a">1</${NS}parameter>\n</${NS}invoke>\n</function_calls>`,
  '我先读文件。\n<function name="read">{"path":"a.md"}</function>\n读完了。',
  'call <function name="x">{}</function> inline stays',
  '<parameter name="q">\n北京天气\n</parameter>',
  'truncated <tool_call>{"name":"x","arguments":{',
  'stray </tool_call> and </function_calls> closers',
  '<tool_call>plain words, not a call</tool_call>',
  '<function_call>\n<tool_call>{"name":"n"}</tool_call>\n</function_call>tail',
  // Markdown code the CommonMark way (indented blocks, lists, quotes, tables)
  '- item\n\n      <|in list code|>\n\n> `<|quoted span|>` <|t|>',
  '| a | b |\n| - | - |\n| `<|x|>` | <|y|> |',
  'para\n    <|lazy continuation|>',
  '~~~\n<relevant-memories>x</relevant-memories>\n~~~\n<relevant-memories>y</relevant-memories>z',
  '``a ` <|t|> b``<|u|>',
]

const FRAGMENTS = [
  '<|im_end|>', '<|assistant|>', '<｜end▁of▁sentence｜>', '<|', '|>', '<｜',
  '<relevant-memories>', '</relevant-memories>', '<RELEVANT_MEMORIES x="1">', '< /relevant_memories >', '<relevant-memoriesx>',
  '🛠️ Exec: ls', '📖 Read: a.md', '⚠️ 🛠️ Exec failed (exit 1)', '🛠️ git status', 'tool_call: x', 'function-call=', '> ', '⚙️ Command:',
  '[TOOL_CALL]', '[/TOOL_CALL]', '[ tool_result ]', '[/TOOL_RESULT]', '{tool => "read", args => {"p":1}}', '{"ok":1}', 'output: 2', 'args =>',
  '<think>', '</think>', '<THINKING a="b">', '</ thinking >', '<internal>', '</internal>', '<think/>', '<final>', '</final>', '<reasoning>', '</thinking>', '<thinkx>', '"', "'",
  '<minimax:tool_call>', '</minimax:tool_call>', ']<]minimax[>[<tool_call>', ']<]minimax[>[</tool_call>', '[Tool Call: f (ID: 1)]', 'Arguments: ', '[Tool Result for ID 1]', '[Historical context: x]', '[Tool ',
  '<tool_call>', '</tool_call>', '<function_calls>', '</function_calls>', '<function name="f">', '</function>', '<invoke name="i">', '</invoke>',
  '<parameter name="p">', '</parameter>', '<function_response>', '</function_response>', '<tool_result>', '<function_call/>', '{"name":"x"}', '[1]', '\\"',
  `<${NS}invoke name="i">`, `</${NS}invoke>`, `<${NS}parameter name="p">`,
  '```', '```js', '~~~', '`', '``', '    ', '\t', '- ', '1. ', '| a |', '|---|',
  '\n', '\n\n', '\r\n', ' ', 'a', 'word', '北京', '，', '好的', '😀', '\u0301', '\u00a0', '\u3000', '\ufeff', 'x y', ':', '=',
]

function generated(n, seed) {
  const rand = rng(seed)
  const out = []
  for (let i = 0; i < n; i++) {
    let s = ''
    for (let k = Math.floor(rand() * 24); k > 0; k--) s += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)]
    out.push(s)
  }
  return out
}

function replyTableInputs() {
  const dir = new URL('./fixtures/replies/', import.meta.url)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => readFileSync(new URL(f, dir), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l).input))
    .filter((s) => typeof s === 'string')
}

test('the 2026.9.6 reply scrubbers match openclaw 2026.9.6 (hand-written, reply table, generated)', async (t) => {
  const why = missing()
  if (why !== null) {
    t.skip(why)
    return
  }
  const sets = [['hand-written', HAND], ['reply table', replyTableInputs()], ['generated', generated(700, 20260906)]]
  const texts = sets.flatMap(([, list]) => list)
  const calls = texts.flatMap((s) => SCRUBBERS.map(([name, , options]) => (options ? [name, s, options] : [name, s])))
  const theirs = await runOpenClaw96(calls)
  assert.equal(theirs.length, calls.length)
  let i = 0
  let changed = 0
  for (const s of texts) {
    for (const [name, ours, options] of SCRUBBERS) {
      const r = theirs[i++]
      const what = `${name}(${JSON.stringify(s)}${options ? `, ${JSON.stringify(options)}` : ''})`
      assert.equal(r.error, undefined, `${what} threw in openclaw: ${r.error}`)
      assert.equal(ours(s), r.value, what)
      if (r.value !== s) changed++
    }
  }
  // The cases exercise the rules: a good share of them is changed by OpenClaw.
  assert.ok(changed > texts.length / 4, `only ${changed} of ${calls.length} calls changed anything`)
  t.diagnostic(`${texts.length} texts (${sets.map(([n, l]) => `${l.length} ${n}`).join(', ')}) × ${SCRUBBERS.length} scrubbers, ${changed} changed`)
})
