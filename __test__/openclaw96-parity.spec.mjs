// The OpenClaw 2026.9.6 oracle: this package's 2026.9.6 reply scrubbers against OpenClaw
// 2026.9.6's own functions (benchmark/openclaw-2026.9.6.mjs: loaded in this process on Node
// >= 24.16, else in one Node 24 child for the whole batch). Every case runs through each scrubber
// on both sides and must give the same string:
//   - hand-written cases (Chinese included), each marker with a twin in code that must stay;
//   - the reply-case table's inputs (__test__/fixtures/replies/*.jsonl);
//   - random replies built from marker fragments (code fences, spans, indented blocks, lists,
//     quotes, tabs, CJK, surrogate pairs).
// Without openclaw 2026.9.6 (scripts/install-reference.sh) or a Node 24 binary (scripts/runtimes.sh)
// the test skips and says what to install. OpenClaw's answers are memoized by question beside the
// installed reference (benchmark/oracle-memo.mjs): the oracle runs again only when a case changes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync, readdirSync } from 'node:fs'
import { rng } from './fixtures/helpers.mjs'
import { runOpenClaw96, missing } from '../benchmark/openclaw-2026.9.6.mjs'
import { memoized } from '../benchmark/oracle-memo.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')

const V96 = { openclawVersion: '2026.9.6' }
const DELIVERY_XML = { stripFunctionResponseAfterPluralToolCalls: true }
const PROGRESS_XML = { stripFunctionCallsXmlPayloads: true }
const ERROR_TEXT = { errorContext: true }
// OpenClaw's runtime-context markers and notice (src/scrub/visible/runtime_context.rs).
const BEGIN = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>'
const END = '<<<END_OPENCLAW_INTERNAL_CONTEXT>>>'
const NOTICE = 'This context is runtime-generated, not user-authored. Keep internal details private.'
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
  // As OpenClaw's reply chain calls it (code protected), and with no options (nothing protected).
  ['stripPlainTextToolCallBlocks', (s) => th.stripPlainTextToolCallBlocks(s), { resolveProtectedRanges: 'findCodeRegions' }],
  ['stripPlainTextToolCallBlocks', (s) => th.stripPlainTextToolCallBlocks(s, { codeAware: false })],
  ['sanitizeAssistantVisibleText', (s) => th.sanitizeAssistantVisibleText(s)],
  ['sanitizeUserFacingText', (s) => th.sanitizeUserFacingText(s)],
  ['sanitizeUserFacingText', (s) => th.sanitizeUserFacingText(s, ERROR_TEXT), ERROR_TEXT],
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
  // plain-text tool calls on their own lines, each with a twin that stays
  // (ollama/ollama#17742: qwen3-coder:30b drops the <tool_call> opener and leaks this block)
  '<function=exec_command>\n<parameter=cmd>\necho LEAK_TEST\n</parameter>\n</function>\n</tool_call>',
  // (lablup/mlxcel#654: gpt-oss Harmony markup in content; a dotted recipient is not a tool name here)
  'I will read the file.\n<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"/etc/hosts"}<|call|>',
  '我来查一下天气。\n<|channel|>commentary to=get_weather code<|message|>{"city":"北京"}<|call|>\n北京今天晴。',
  '先读文件：\n<function=read>\n<parameter=path>\n笔记.md\n</parameter>\n</function>\n读完了。',
  '用法示例：\n```\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n```\n照这样写。',
  '查询：\n[get_weather]\n{"city":"上海"}\n[END_TOOL_REQUEST]\n上海多云。',
  '[get_weather]\n{"city":"上海"}\n[/get_weather]',
  '[注意]\n{"不是":"调用"}\n[/注意]',
  '[Note]\n{not json}\n[/Note]\nrest',
  '[Intro]\n{"a":1}\nplain words after',
  '  [tool:exec] {"cmd":"ls -la"} [tool:read] {"path":"a.md"}\n结果在上面',
  '文字 [tool:exec] {"cmd":"ls"} 在句中',
  '- 列表\n\n      [tool:exec] {"cmd":"ls"}\n',
  '`[tool:exec] {"cmd":"ls"}` 是示例\n[tool:exec] {"cmd":"pwd"}',
  '[tool:write]\n<parameter=path>a.md</parameter>\n<parameter=content>\n你好\n</parameter>\ntail',
  '[search]\n<parameter=q>x</parameter>\n</function>',
  'final to=send code {"to":"a"} [END_TOOL_REQUEST] after\nnext',
  'analysis to=x code {"a":',
  '[tool:exec] {"a":1}\n[get_weather]\n{"city":',
  '<FUNCTION=Read>\r\n<PARAMETER=path>a</PARAMETER>\r\n</FUNCTION>\r\nok',
  '\u3000[tool:x] {"k":"v"}\u2028ok',
  // Markdown code the CommonMark way (indented blocks, lists, quotes, tables)
  '- item\n\n      <|in list code|>\n\n> `<|quoted span|>` <|t|>',
  '| a | b |\n| - | - |\n| `<|x|>` | <|y|> |',
  'para\n    <|lazy continuation|>',
  '~~~\n<relevant-memories>x</relevant-memories>\n~~~\n<relevant-memories>y</relevant-memories>z',
  '``a ` <|t|> b``<|u|>',
  // user-facing chain: runtime context, inbound metadata, placeholders, repeated paragraphs
  `好的。\n${BEGIN}\n子任务完成：3 个文件\n${END}\n继续处理。`,
  `${BEGIN}\n${BEGIN}\n嵌套\n${END}\n外层\n${END}\n答复`,
  `答案是 42。\n  ${BEGIN}  \n没有闭合的内部上下文`,
  `行内的 ${BEGIN} 不算\n\`${END}\` 也不算`,
  `a\n${END}\nb\r\n\t${END}\t\r\nc`,
  `${BEGIN}\u00a0\n${BEGIN}\nx\n${END}\ny`,
  '```\n' + BEGIN + '\ncode\n' + END + '\n```\n外面',
  `前文\n\nOpenClaw runtime context (internal):\n${NOTICE}\n\n[Internal task completion event]\nchild done\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\n结果\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n\nAction:\nreply now\n\n后文`,
  `OpenClaw runtime event.\n${NOTICE}\n\n\n\n北京今天晴。`,
  `Use it to continue answering the active user request now. Do not wait for another message.  ${NOTICE.replaceAll(' ', '\n')}\r\n答复`,
  `The notice says: ${NOTICE}`,
  'Conversation info: ⟦openclaw:ctx⟧\n```json\n{"chat":"群聊","sender":"小明"}\n```\n\n好的，马上处理。',
  'Sender: ⟦openclaw:ctx⟧\nname: 小明\nid: 42\n\n你好！',
  '好的\nContext: ⟦openclaw:ctx⟧\nchannel: #general',
  '答复\nDelivery: to send a message, use the `message` tool.\n结束',
  'Context:\n<active_memory_plugin>\n用户喜欢喝茶\n</active_memory_plugin>\n\n推荐绿茶。',
  'Context:\nthe build failed, see above',
  '[Mon 2026-09-07 10:00 GMT+8] 你好，有什么可以帮你？',
  '[Mon 2026-9-7] 不是时间戳',
  'The marker ⟦openclaw:ctx⟧ mid-line stays',
  '结果：\n(no output)\n  [Tool Calls Omitted]  \n完成',
  '```\n(no output)\n```\nit printed (no output) here',
  '北京今天晴。\n\n北京今天晴。\n\n明天下雨。',
  '  重复  的段落\n\n重复 的段落\n\n\n\n重复 的段落',
  'run `ls`\n\nrun `ls`\n\ndone',
  '```\nx\n```\n\n```\nx\n```\n\nok\n\nok',
  'a\nb\n\na b\n\nc',
  '\n\n  \n\t\r\n  开头有空行',
  ' \n \u3000 ',
  '<final>北京今天晴。</final>\n\n北京今天晴。',
  'Sure.\n<function_calls>\n<invoke name="search">\n<parameter name="q">天气</parameter>\n</invoke>\n</function_calls>\nDone.',
  '🛠️ Exec: npm test\n⚠️ 🛠️ Exec failed (exit 1)\n测试失败。',
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

// The user-facing chain's pieces (mixed into a third generated set).
const USER_FRAGMENTS = [
  BEGIN, END, `\n${BEGIN}\n`, `\n${END}\n`, NOTICE, 'OpenClaw runtime event.', 'OpenClaw runtime context (internal):\n', '[Internal task completion event]',
  '<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>', '<<<END_UNTRUSTED_CHILD_RESULT>>>', '\n\nAction:\n', '\n\n---\n\n',
  'Sender: ⟦openclaw:ctx⟧', 'Context: ⟦openclaw:ctx⟧', '⟦openclaw:ctx⟧', '```json', 'Context:', '<active_memory_plugin>', '</active_memory_plugin>',
  'Delivery: to send a message, use the `message` tool.', '[Mon 2026-09-07 10:00]', '(no output)', '[tool calls omitted]', '<final>', '</final>',
  '北京今天晴。', '北京今天晴。', 'same', 'same', '\n\n', '\n\n', '\n\n\n', '\n', '  ', '\t', '```', '`x`', '    ', '\u3000', '\r\n',
]

// Plain-text tool-call pieces (mixed into a second generated set).
const CALL_FRAGMENTS = [
  '[tool:exec]', '[tool:', '[get_weather]', '[END_TOOL_REQUEST]', '[/get_weather]', '[/x]', '[x]', '<function=read>', '<function=',
  '</function>', '<parameter=path>', '<parameter=', '</parameter>', '<|channel|>', 'commentary', 'analysis to=x', 'final', ' to=get_weather',
  ' code', '<|message|>', '<|call|>', '{"city":"北京"}', '{"a":[1,{"b":"}"}]}', '{', '}', '{"a":1', '\n', '\n', '  ',
]

function generated(n, seed, fragments = FRAGMENTS) {
  const rand = rng(seed)
  const out = []
  for (let i = 0; i < n; i++) {
    let s = ''
    for (let k = Math.floor(rand() * 24); k > 0; k--) s += fragments[Math.floor(rand() * fragments.length)]
    out.push(s)
  }
  return out
}

/** Replies made of whole lines: prose, fences, and plain-text calls of every shape, some damaged. */
function callReplies(n, seed) {
  const rand = rng(seed)
  const pick = (list) => list[Math.floor(rand() * list.length)]
  const args = ['{"city":"北京"}', '{"path":"a.md","n":[1,2,{"x":"}"}]}', '{"q":"a\\"b"}', '{}', '{"a":1', '{bad}', '[1]', '"s"']
  const calls = [
    () => `[tool:${pick(['exec', 'read', 'x'])}]${pick([' ', '', '\n'])}${pick(args)}${pick(['', ' [END_TOOL_REQUEST]', '<|call|>', ' [/exec]', ' tail'])}`,
    () => `[${pick(['get_weather', 'search', 'Intro'])}]${pick(['\n', ' \n', '\r\n', ' '])}${pick(args)}${pick(['\n[END_TOOL_REQUEST]', '\n[/get_weather]', '[/search]', '', '\nwords'])}`,
    () => `${pick(['<|channel|>', ''])}${pick(['commentary', 'analysis', 'final'])} to=${pick(['f', 'functions.f', ''])} ${pick(['code', 'json', 'code<|message|>', 'code <|message|>'])}${pick(args)}${pick(['<|call|>', '', ' [END_TOOL_REQUEST]'])}`,
    () => `<${pick(['function', 'FUNCTION'])}=${pick(['read', 'a.b:c', ''])}>\n${pick(['<parameter=path>\na.md\n</parameter>\n', '<parameter=p>v</parameter>', '', '<parameter=p>unclosed\n'])}${pick(['</function>', '', 'prose'])}`,
    () => `[tool:write]\n<parameter=path>a</parameter>${pick(['\n<parameter=c>你好</parameter>', ''])}${pick(['', '\nnext', '</function>'])}`,
  ]
  const lines = ['好的，我来处理。', 'Done.', '', '```', '~~~', '    indented', '- item', '> quote', '`[tool:x] {"a":1}`', 'text [tool:x] {"a":1}']
  const out = []
  for (let i = 0; i < n; i++) {
    const parts = []
    for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) parts.push(rand() < 0.5 ? pick(calls)() : pick(lines))
    out.push(`${pick(['', '  ', '\t'])}${parts.join(pick(['\n', '\n\n', '\r\n', ' ']))}`)
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
  const sets = [['hand-written', HAND], ['reply table', replyTableInputs()], ['generated', generated(700, 20260906)], ['generated with calls', generated(200, 96, [...FRAGMENTS, ...CALL_FRAGMENTS, ...CALL_FRAGMENTS])], ['call lines', callReplies(200, 9606)], ['user-facing', generated(300, 907, USER_FRAGMENTS)]]
  const texts = sets.flatMap(([, list]) => list)
  const calls = texts.flatMap((s) => SCRUBBERS.map(([name, , options]) => (options ? [name, s, options] : [name, s])))
  const theirs = await memoized('2026.9.6', calls, runOpenClaw96)
  assert.equal(theirs.length, calls.length)
  let i = 0
  let changed = 0
  const changedBy = new Map()
  for (const s of texts) {
    for (const [name, ours, options] of SCRUBBERS) {
      const r = theirs[i++]
      const what = `${name}(${JSON.stringify(s)}${options ? `, ${JSON.stringify(options)}` : ''})`
      assert.equal(r.error, undefined, `${what} threw in openclaw: ${r.error}`)
      assert.equal(ours(s), r.value, what)
      if (r.value !== s) {
        changed++
        changedBy.set(name, (changedBy.get(name) ?? 0) + 1)
      }
    }
  }
  // The cases exercise the rules: a good share of them is changed by OpenClaw, by every scrubber.
  assert.ok(changed > texts.length / 4, `only ${changed} of ${calls.length} calls changed anything`)
  for (const [name] of SCRUBBERS) assert.ok((changedBy.get(name) ?? 0) >= 20, `${name} changed only ${changedBy.get(name) ?? 0} texts`)
  t.diagnostic(`changed per scrubber: ${[...changedBy].map(([n, c]) => `${n} ${c}`).join(', ')}`)
  t.diagnostic(`${texts.length} texts (${sets.map(([n, l]) => `${l.length} ${n}`).join(', ')}) × ${SCRUBBERS.length} scrubbers, ${changed} changed`)
})

// Text-call promotion: messages (string content and block arrays), each with the tools offered.
const TOOLS = ['get_weather', 'read', 'exec']
const PROMOTION = [
  '[tool:get_weather] {"city":"北京"}',
  '  [tool:get_weather] {"city":"北京"}\n[tool:read] {"path":"笔记.md"}\n',
  '[get_weather]\n{"city":"上海"}\n[END_TOOL_REQUEST]',
  '<function=read>\n<parameter=path>\na.md\n</parameter>\n<parameter=path>b.md</parameter>\n</function>',
  '<function=exec>\r\n<parameter=cmd>\r\nls -la\r\n</parameter>\r\n</function>',
  'commentary to=exec code {"cmd":"ls"}<|call|>',
  '<|channel|>commentary to=read code<|message|>{"path":"a"}<|call|>',
  // stays: prose beside the call, an unknown tool, code, bad JSON, nothing but prose
  '先查一下天气。\n[tool:get_weather] {"city":"北京"}',
  '[tool:delete_all] {}',
  '```\n[tool:read] {"path":"a"}\n```',
  '`[tool:read] {"path":"a"}`',
  '[tool:read] {"path":}',
  '[tool:read] ["a"]',
  '北京今天晴。',
  '',
  '   ',
].map((content) => ({ role: 'assistant', content, stopReason: 'stop' }))
PROMOTION.push(
  { role: 'assistant', content: [{ type: 'text', text: '[get_weather]' }, { type: 'text', text: '{"city":"广州"}\n[/get_weather]' }], stopReason: 'stop' },
  { role: 'assistant', content: [{ type: 'thinking', thinking: '用户要天气' }, { type: 'text', text: '[tool:get_weather] {"city":"深圳"}' }, { type: 'text', text: '  ' }], stopReason: 'stop' },
  { role: 'assistant', content: [{ type: 'text', text: '<function=read>\n<parameter=path>' }, { type: 'text', text: 'a.md</parameter>\n</function>' }] },
  { role: 'assistant', content: [{ type: 'text', text: '[tool:read] {"path":"a"}' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }] },
  { role: 'assistant', content: [{ type: 'text', text: '[tool:read] {"path":"a"}' }, { type: 'text', text: 'and prose' }] },
  { role: 'assistant', content: [{ type: 'text', text: '  ' }, { type: 'image', data: 'x' }] },
  { role: 'assistant', content: [{ type: 'text', text: 3 }, { type: 'text', text: '[tool:read] {"path":"a"}' }] },
)

/** The message with every promoted call's id replaced (OpenClaw's are random). */
const withoutIds = (m) => m && { ...m, content: Array.isArray(m.content) ? m.content.map((b) => (b?.type === 'toolCall' && b.id !== 'c1' ? { ...b, id: '<id>' } : b)) : m.content }

test('text-call promotion matches openclaw 2026.9.6', async (t) => {
  const why = missing()
  if (why !== null) {
    t.skip(why)
    return
  }
  const cases = [...PROMOTION.map((m) => [m, TOOLS]), [PROMOTION[0], []]]
  const theirs = await memoized('2026.9.6', cases.map(([m, tools]) => ['promotePlainTextToolCalls', m, { $set: tools }]), runOpenClaw96)
  let promoted = 0
  for (const [i, [message, tools]] of cases.entries()) {
    const r = theirs[i]
    assert.equal(r.error, undefined, `openclaw threw on ${JSON.stringify(message)}: ${r.error}`)
    const ours = th.promotePlainTextToolCalls(message, tools)
    assert.deepEqual(withoutIds(ours), withoutIds(r.value?.message) ?? null, JSON.stringify(message))
    if (ours !== null) {
      promoted++
      assert.deepEqual(th.promotePlainTextToolCalls(message, new Set(tools)), ours, 'the same ids each time, a Set or an array')
    }
  }
  assert.ok(promoted >= 8 && promoted < cases.length - 8, `${promoted} of ${cases.length} promoted`)
})

// sanitizeUserFacingText's prompt echo (`conversationContext`) and its `streaming` call: prompts
// with chat-context headings (Chinese among them, lists and quotes in the prompt, CRLF, one-line)
// and three that OpenClaw does not verify (the heading in code, inside a line, after a list
// marker); replies that copy the prompt as written, quoted, as a list, indented, numbered, under
// a heading, in CRLF or CR lines, twice, inside a line, in a fence, cut short (streaming), and
// twins that must stay (a line changed, the heading only mentioned, the lines without it).
const CHAT = '[Chat messages since your last reply - for context]'
const CURRENT = '[Current message - respond to this]'
const ECHO_PROMPTS = [
  `${CHAT}\nAlice: 明天开会吗？\nBob: 十点。\n\n${CURRENT}\nAlice: 会议室在哪？`,
  `[Recent chat messages - for context]\n- alice: deploy failed\n- bob: retry it\n\n${CURRENT}\nCan you check the logs?`,
  CURRENT,
  `\n\n  ${CURRENT}\n北京天气怎么样？  \n\n`,
  `${CURRENT}\r\n你好\r\n世界`,
  `${CHAT}\n> quoted: 1. first\n## Title\n    indented line\n\n${CURRENT}\n3) 三`,
  '```\n' + CURRENT + '\n```\nhi',
  `see ${CURRENT} here\nand more`,
  `- ${CURRENT}\nx`,
]

function echoReplies(prompt) {
  const s = prompt.trim().replace(/\r\n?/g, '\n')
  const lines = s.split('\n')
  const wrap = (w) => lines.map((l) => w + l).join('\n')
  return [
    `${s}\n\n好的，会议室在三楼。`, `好的，会议室在三楼。\n\n${s}`, `${s}\n${s}\nok`, `${s}${s}`,
    wrap('> ') + '\n\n答复', wrap('- ') + '\n答复', wrap('> > ') + '\n答复', wrap('  ') + '\n答复',
    wrap('1. ') + '\n答复', wrap('## ') + '\n答复', s.replace(/\n/g, '\r\n') + '\r\n答复', s.replace(/\n/g, '\r') + '\r答复',
    `前言：${s} 后记`, '```\n' + s + '\n```\n代码里的也算吗？', `${s}（不完整）`,
    lines.map((l, i) => (i === 1 ? `${l} changed` : l)).join('\n') + '\n答',
    `OpenClaw writes "${CURRENT}" above the message.`, `Use \`${CURRENT}\` as a heading.`, `${lines.slice(1).join('\n')}\nno heading here`,
    `答复。\n${s.slice(0, s.length >> 1)}`, `答复。\n${s.slice(0, 10)}`, `答复。\n${wrap('> ').slice(0, Math.floor(s.length * 0.7))}`,
    `答复。\n${wrap('- ').slice(0, Math.floor(s.length * 0.4))}`, `答复。\n${s.slice(0, -1)}`, `答复。\n${s.slice(0, 1)}`,
    `${s}\n\n${'答复。\n'.repeat(3)}${s.slice(0, 20)}`, `\n\n${s}\n\n\n答复`, '',
    `答复。\n${BEGIN}\n内部\n${END}\n继续\n<<<END_OPEN`, '答复。\n\n  <<<BEGIN_OPENCLAW', '答复 <<<BEGIN_OPENCLAW',
  ]
}

/** Replies made of prompt lines under random wrappers, joined and cut at random. */
function echoGenerated(n, seed) {
  const rand = rng(seed)
  const pick = (l) => l[Math.floor(rand() * l.length)]
  const wrappers = ['', '', '', '> ', '- ', '* ', '+ ', '# ', '###### ', '####### ', '1. ', '12) ', '1234567890. ', '  ', '\t', '>', '> > ', '-', '#', '1.', ' > - ']
  const joins = ['\n', '\n', '\r\n', '\r', '\n\n', ' ']
  const extras = ['好的。', 'Sure.', '答复', '', '```', '`x`', BEGIN, '\u2028', '    ']
  const out = []
  for (let i = 0; i < n; i++) {
    const prompt = pick(ECHO_PROMPTS)
    const lines = prompt.trim().replace(/\r\n?/g, '\n').split('\n')
    const parts = []
    for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) {
      if (rand() < 0.6) {
        const from = rand() < 0.7 ? 0 : Math.floor(rand() * lines.length)
        const to = rand() < 0.7 ? lines.length : from + Math.floor(rand() * (lines.length - from + 1))
        let seg = lines.slice(from, to).map((l) => pick(wrappers) + l).join(pick(joins))
        if (rand() < 0.3) seg = seg.slice(0, Math.floor(rand() * seg.length))
        if (rand() < 0.15) seg = seg.replace(/[a-z]/, 'Q')
        parts.push(seg)
      } else parts.push(pick(extras))
    }
    out.push([prompt, parts.join(pick(joins))])
  }
  return out
}

test("sanitizeUserFacingText's conversationContext and streaming match openclaw 2026.9.6", async (t) => {
  const why = missing()
  if (why !== null) {
    t.skip(why)
    return
  }
  const options = [(p) => ({ conversationContext: p }), (p) => ({ conversationContext: p, streaming: true }), (p) => ({ conversationContext: p, errorContext: true }), () => ({ streaming: true })]
  const pairs = [...ECHO_PROMPTS.flatMap((p) => echoReplies(p).map((r) => [p, r])), ...echoGenerated(400, 2026096)]
  const calls = pairs.flatMap(([p, r]) => options.map((o) => ['sanitizeUserFacingText', r, o(p)]))
  const theirs = await memoized('2026.9.6', calls, runOpenClaw96)
  let changed = 0
  for (const [i, [, text, opts]] of calls.entries()) {
    const r = theirs[i]
    assert.equal(r.error, undefined, `openclaw threw: ${r.error}`)
    assert.equal(th.sanitizeUserFacingText(text, opts), r.value, `sanitizeUserFacingText(${JSON.stringify(text)}, ${JSON.stringify(opts)})`)
    if (r.value !== th.sanitizeUserFacingText(text, opts.errorContext ? { errorContext: true } : {})) changed++
  }
  // The options matter: a good share of the calls differ from the call without them.
  assert.ok(changed > calls.length / 8, `only ${changed} of ${calls.length} calls changed by the options`)
  t.diagnostic(`${pairs.length} prompt/reply pairs × ${options.length} option sets, ${changed} changed by the options`)
})

// The prompt-echo stream (ConversationContextStreamCleaner) against 2026.9.6's own stream filter
// (`createVerifiedConversationContextStreamFilter`), on the pairs above cut three ways (every UTF-16
// unit, so inside surrogate pairs and inside the prompt's lines; random 1–7 units; after each line
// break). Ours must give, for every chunking, the whole reply with 2026.9.6's copies removed (its
// own whole-text rule). OpenClaw's filter releases text a later chunk can turn into a copy and then
// goes silent; where it stayed stable, its final text must be ours, or ours plus the copy begun at
// the very end that it holds forever (a finished reply has no copy there: ours releases it at finish).
function chunkings(reply, rand) {
  const units = [...Array(reply.length).keys()].map((i) => reply[i])
  const random = []
  for (let i = 0; i < reply.length; ) {
    const n = 1 + Math.floor(rand() * 7)
    random.push(reply.slice(i, i + n))
    i += n
  }
  return [units, random, reply.split(/(?<=\n)/)].map((c) => (c.length === 0 ? [''] : c))
}

test('ConversationContextStreamCleaner matches openclaw 2026.9.6 stream filter where that filter is stable', async (t) => {
  const why = missing()
  if (why !== null) {
    t.skip(why)
    return
  }
  const rand = rng(2026096)
  const pairs = [...ECHO_PROMPTS.flatMap((p) => echoReplies(p).map((r) => [p, r])), ...echoGenerated(200, 96014)]
  // A third end with an emoji, a third with its high surrogate alone (kept as written), a third as they are.
  const ends = (r) => `${r}😀`.slice(0, r.length + Math.floor(rand() * 3))
  const calls = pairs.flatMap(([p, r]) => chunkings(ends(r), rand).map((c) => ['conversationContextStream', p, c]))
  const theirs = await memoized('2026.9.6', calls, runOpenClaw96)
  const count = { stable: 0, same: 0, heldCopy: 0, unstable: 0, changed: 0 }
  for (const [i, [, prompt, chunks]] of calls.entries()) {
    const { value, error } = theirs[i]
    assert.equal(error, undefined, `openclaw threw: ${error}`)
    const s = new th.ConversationContextStreamCleaner({ conversationContext: prompt, openclawVersion: '2026.9.6' })
    const ours = chunks.map((c) => s.push(c)).join('') + s.finish()
    const what = `${JSON.stringify(prompt)} / ${JSON.stringify(chunks)}`
    assert.equal(ours, value.whole, `whole == streamed, and 2026.9.6's copies: ${what}`)
    if (ours !== chunks.join('')) count.changed++
    const released = value.pieces.join('')
    if (released !== value.wholeStreaming) {
      count.unstable++
      continue
    }
    count.stable++
    if (released === ours) count.same++
    else {
      assert.ok(value.wholeStreaming !== value.whole && ours.startsWith(released), `OpenClaw's stable filter released ${JSON.stringify(released)}, ours ${JSON.stringify(ours)}: ${what}`)
      count.heldCopy++
    }
  }
  // The cases do hold copies, and OpenClaw's filter does go silent on some.
  assert.ok(count.changed > calls.length / 8 && count.unstable > 0 && count.heldCopy > 0, JSON.stringify(count))
  t.diagnostic(`${calls.length} chunked replies: ${JSON.stringify(count)}`)
})
