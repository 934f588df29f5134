// The outbound scrubbers (OpenClaw's names and behaviour) and seed 000's sanitizer API, as a JS
// caller uses them. Expected values were written from OpenClaw 2026.3.23-2's behaviour (§4.11 of
// the OpenClaw reference) and the seed, not copied from either.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const {
  cleanResponse,
  stripMinimaxToolCallXml,
  stripModelSpecialTokens,
  stripDowngradedToolCallText,
  stripReasoningTagsFromText,
  stripThinkingTagsFromText,
  sanitizeToolCall,
  sanitizeThinkingTags,
  createResponseSanitizer,
} = require('../index.js')
// Expected values are OpenClaw 2026.3.23-2's (openclaw96-parity.spec.mjs checks 2026.9.6's): pinned,
// whatever the package default (2026.9.6) is.
require('../index.js').setOpenClawVersion('2026.3.23')

const ZH = '抱歉，我遇到了一些技术问题。请换一种方式提问。'
const EN = 'Sorry, I ran into a technical problem. Please try asking in a different way.'
const HI = '\uD83D' // a lone high surrogate (half of an emoji)
const LO = '\uDE00' // a lone low surrogate

/** OpenClaw's `extractAssistantText` chain, as an OpenClaw user would call it after swapping. */
const openclawChain = (t) => stripThinkingTagsFromText(stripDowngradedToolCallText(stripModelSpecialTokens(stripMinimaxToolCallXml(t)))).trim()
const EXACT = { codeAware: false }

// Markup quoted in code is text (codeAware, the default); { codeAware: false } gives OpenClaw's
// bytes. Each row: function, input, default result (null: unchanged), OpenClaw's result. A marker
// mentioned only in code does not arm the MiniMax scrubber (third row).
const CODE_CASES = [
  [stripMinimaxToolCallXml, 'MiniMax 的格式：`<minimax:tool_call><invoke name="f">x</invoke></minimax:tool_call>`。', null, 'MiniMax 的格式：``。'],
  [stripMinimaxToolCallXml, 'Format:\n```xml\n<minimax:tool_call>\n<invoke name="f">x</invoke>\n</minimax:tool_call>\n```\nDone.', null, 'Format:\n```xml\n\n\n\n```\nDone.'],
  [stripMinimaxToolCallXml, '`minimax:tool_call` 之后 <invoke name="f">x</invoke> 结束', null, '`minimax:tool_call` 之后  结束'],
  [stripModelSpecialTokens, 'GLM-5 会输出 `<|assistant|>`，不要显示 <|assistant|> 给用户', 'GLM-5 会输出 `<|assistant|>`，不要显示 给用户', 'GLM-5 会输出 ` `，不要显示 给用户'],
  [stripModelSpecialTokens, 'DeepSeek 的 `<｜begin▁of▁sentence｜>` 标记', null, 'DeepSeek 的 ` ` 标记'],
  [stripDowngradedToolCallText, 'Gemini writes `[Tool Call: read (ID: 1)]` in history.', null, 'Gemini writes `` in history.'],
]

describe('scrubbers and code', () => {
  test('markup inside inline code and fences is kept by default; codeAware: false gives OpenClaw\'s bytes', () => {
    for (const [fn, input, kept, exact] of CODE_CASES) {
      assert.equal(fn(input), kept ?? input, `${fn.name}(${JSON.stringify(input)})`)
      assert.equal(fn(input, { codeAware: false }), exact, `${fn.name}(${JSON.stringify(input)}, exact)`)
    }
  })
})

describe('stripMinimaxToolCallXml', () => {
  test('removes invoke blocks and wrapper tags, keeps the text around them untrimmed', () => {
    const t = 'Let me read it. <minimax:tool_call>\n<invoke name="read">\n<parameter name="path">a.txt</parameter>\n</invoke>\n</minimax:tool_call>'
    assert.equal(stripMinimaxToolCallXml(t), 'Let me read it. \n\n')
  })

  test('parallel invokes and any letter case', () => {
    const t = 'A<MiniMax:Tool_Call><INVOKE name="a">1</Invoke><invoke name="b">2</invoke></MINIMAX:TOOL_CALL>B'
    assert.equal(stripMinimaxToolCallXml(t), 'AB')
  })

  test('only acts when the text mentions minimax:tool_call', () => {
    const t = 'Example: <invoke name="x">y</invoke>'
    assert.equal(stripMinimaxToolCallXml(t), t)
  })

  test('a truncated invoke stays; a stray closing wrapper goes', () => {
    const t = 'ok <invoke name="f"><parameter name="p">1</minimax:tool_call>'
    assert.equal(stripMinimaxToolCallXml(t), 'ok <invoke name="f"><parameter name="p">1')
  })

  test('<invoker> is not <invoke>', () => {
    const t = 'minimax:tool_call <invoker>x</invoke>'
    assert.equal(stripMinimaxToolCallXml(t), t)
  })
})

describe('stripModelSpecialTokens', () => {
  test('ASCII and full-width tokens become one space, then spaces collapse and the text is trimmed', () => {
    assert.equal(stripModelSpecialTokens('<|assistant|>Hello  <|tool_call_result_begin|> world '), 'Hello world')
    assert.equal(stripModelSpecialTokens('<｜begin▁of▁sentence｜>你好<｜end▁of▁sentence｜>'), '你好')
  })

  test('text without a token is returned as it is, double spaces and all', () => {
    for (const t of ['a  b ', 'a <| b', 'x || y |> z', '']) assert.equal(stripModelSpecialTokens(t), t)
  })

  test('a token may span lines but holds no pipe', () => {
    assert.equal(stripModelSpecialTokens('a<|x\ny|>b'), 'a b')
    assert.equal(stripModelSpecialTokens('<|a|b|>'), '<|a|b|>')
  })
})

describe('stripDowngradedToolCallText', () => {
  test('a call marker with its JSON arguments (nested, with brackets in strings)', () => {
    const t = 'Reading.\n[Tool Call: read (ID: toolu_1)]\nArguments: {"path": "a]}.txt", "opts": [1, {"x": "{"}]}\nDone.'
    assert.equal(stripDowngradedToolCallText(t), 'Reading.\nDone.')
  })

  test('string and rest-of-line arguments; unbalanced JSON keeps the value', () => {
    assert.equal(stripDowngradedToolCallText('[Tool Call: f]\nArguments: "q \\" x" then'), 'then')
    assert.equal(stripDowngradedToolCallText('[tool call: f]\narguments: a b c\nnext'), 'next')
    assert.equal(stripDowngradedToolCallText('[Tool Call: f]\nArguments: {"a": 1'), '{"a": 1')
  })

  test('a result marker takes its text up to the next [Tool marker', () => {
    const t = 'Before\n[Tool Result for ID toolu_1]\nline 1\nline 2\n\n[Tool Result for ID toolu_2]\nother\n'
    assert.equal(stripDowngradedToolCallText(t), 'Before')
    assert.equal(stripDowngradedToolCallText('x [Tool Result for ID 1] out [Tool note] y'), 'x [Tool note] y')
  })

  test('historical context markers', () => {
    assert.equal(stripDowngradedToolCallText('[Historical context: a summary]\nHi'), 'Hi')
  })

  test('without a marker the text is returned untrimmed', () => {
    assert.equal(stripDowngradedToolCallText('  [Tool] and [Historical] \n'), '  [Tool] and [Historical] \n')
  })

  test('an unterminated marker is kept (then trimmed)', () => {
    assert.equal(stripDowngradedToolCallText(' [Tool Call: never closed '), '[Tool Call: never closed')
  })
})

describe('stripThinkingTagsFromText / stripReasoningTagsFromText', () => {
  test('removes every reasoning tag name with its text, any case and attributes', () => {
    assert.equal(stripThinkingTagsFromText('<think>plan</think>\nAnswer'), 'Answer')
    assert.equal(stripThinkingTagsFromText('<thinking id="1">x</thinking><Thought>y</THOUGHT> <antThinking>z</antThinking>D'), 'D')
    assert.equal(stripThinkingTagsFromText('A<thinking id="1">x</thinking>B<Thought>y</THOUGHT>C<antThinking>z</antThinking>D', EXACT), 'ABCD')
    assert.equal(stripThinkingTagsFromText('A< /think >B', EXACT), 'AB')
  })

  test('by default tags are read as cleanResponse reads a reply; codeAware: false gives OpenClaw\'s bytes', () => {
    // Reasoning only where it starts the text: a later tag, and its closing tag, are text.
    const late = '回答：用 <think>…</think> 包住推理。'
    assert.equal(stripThinkingTagsFromText(late), late)
    assert.equal(stripThinkingTagsFromText(late, EXACT), '回答：用  包住推理。')
    // A closing tag inside a sentence is text; one ending its line at the start ends reasoning.
    const sentence = '本地部署DeepSeek-R1-Distill-Qwen-32B,输出仅有</think>，没有<think>'
    assert.equal(stripThinkingTagsFromText(sentence), sentence)
    assert.equal(stripThinkingTagsFromText('I should look.\n</think>\n\nHere it is.'), 'Here it is.')
    assert.equal(stripThinkingTagsFromText('I should look.\n</think>\n\nHere it is.', EXACT), 'I should look.\n\n\nHere it is.')
    // One that ends the text takes only itself (strict mode emptied a sentence someone wrote).
    assert.equal(stripThinkingTagsFromText('模型回复的最后多了一个\n</thinking>'), '模型回复的最后多了一个')
    assert.equal(stripReasoningTagsFromText('模型回复的最后多了一个\n</thinking>', { mode: 'strict' }), '模型回复的最后多了一个')
    // A fence indented by two spaces is code.
    const fenced = 'Example:\n  ```\n  <think>x</think> ok'
    assert.equal(stripReasoningTagsFromText(fenced), fenced)
    assert.throws(() => stripThinkingTagsFromText('x', { codeAware: 'yes' }), { name: 'TypeError', message: /^options\.codeAware/ })
  })

  test('<final> tags go, their text stays', () => {
    assert.equal(stripThinkingTagsFromText('<think>r</think><final>The answer.</final>'), 'The answer.')
  })

  test('tags inside fenced or inline code are left alone', () => {
    const t = 'Write `<think>` first:\n```xml\n<think>example</think>\n```'
    assert.equal(stripThinkingTagsFromText(t), t)
  })

  test('unclosed block: strict drops the rest, preserve keeps it', () => {
    assert.equal(stripThinkingTagsFromText('<think>still going'), '')
    assert.equal(stripReasoningTagsFromText(' <think>still going', { mode: 'preserve' }), 'still going')
    assert.equal(stripThinkingTagsFromText('Hi <think>still going', EXACT), 'Hi')
    assert.equal(stripReasoningTagsFromText('Hi <think>still going', { mode: 'preserve', ...EXACT }), 'Hi still going')
  })

  test('trim modes; text without tags is untrimmed', () => {
    assert.equal(stripReasoningTagsFromText(' <think>x</think>a ', { trim: 'none' }), ' a ')
    assert.equal(stripReasoningTagsFromText(' <think>x</think>a ', { trim: 'start' }), 'a ')
    assert.equal(stripReasoningTagsFromText(' a<think>x</think> ', { trim: 'none', ...EXACT }), ' a ')
    assert.equal(stripThinkingTagsFromText('  plain  '), '  plain  ')
  })

  test('stripThinkingTagsFromText without options is strict and trims both ends', () => {
    const t = '  x <think>a</think> y <think>b'
    assert.equal(stripThinkingTagsFromText(t), stripReasoningTagsFromText(t, { mode: 'strict', trim: 'both' }))
    assert.equal(stripThinkingTagsFromText(t), t, 'late tags are text, and nothing removed is nothing trimmed')
    assert.equal(stripThinkingTagsFromText(t, EXACT), 'x  y')
  })
})

describe('the OpenClaw chain', () => {
  test('a MiniMax reply with leaked tokens and reasoning', () => {
    const t = '<think>user wants a file</think><|assistant|>Here it is.<minimax:tool_call><invoke name="read"><parameter name="p">x</parameter></invoke></minimax:tool_call>'
    assert.equal(openclawChain(t), 'Here it is.')
  })
})

describe('sanitizeToolCall (seed 000)', () => {
  test("the seed's own cases", () => {
    const out = sanitizeToolCall('minimax/MiniMax-M2.1', '<invoke><exec><cmd>date "+%H:%M:%S"</cmd></exec></invoke>')
    assert.ok(!out.includes('<invoke>'))
    assert.ok(out.length > 0)
    assert.equal(sanitizeToolCall('minimax/MiniMax-M2.1', '你好，现在是下午3点。'), '你好，现在是下午3点。')
    const mixed = sanitizeToolCall('minimax/MiniMax-M2.1', '让我帮你查询。<invoke><exec>...</exec></invoke>')
    assert.equal(mixed, '让我帮你查询。')
  })

  test('minimax: structured and truncated calls go, the text stays', () => {
    const t = '我查一下。<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">北京天气</parameter>\n</invoke>\n</minimax:tool_call>'
    assert.equal(sanitizeToolCall('minimax/MiniMax-M2.5', t), '我查一下。')
    assert.equal(sanitizeToolCall('MiniMax/M2', 'OK <minimax:tool_call><invoke name="s"><parameter name="q">cut off'), 'OK')
  })

  test('zhipu / glm: the seed\'s ```tool_call fences and GLM\'s own call format', () => {
    assert.equal(sanitizeToolCall('zhipu/glm-4', '好的\n```tool_call\n{"name": "f"}\n```'), '好的')
    const glm = '稍等<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>'
    assert.equal(sanitizeToolCall('glm/glm-4.5', glm), '稍等')
  })

  test('qwen / qwen-portal: hermes and qwen3-coder calls', () => {
    assert.equal(sanitizeToolCall('qwen/qwen2.5-72b', 'Sure.<tool_call>{"name": "f", "arguments": {}}</tool_call>'), 'Sure.')
    const coder = 'Running.\n<tool_call>\n<function=run>\n<parameter=cmd>ls</parameter>\n</function>\n</tool_call>'
    assert.equal(sanitizeToolCall('qwen-portal/qwen3-coder', coder), 'Running.')
  })

  test('generic: the seed\'s tag rules, but not inside code', () => {
    assert.equal(sanitizeToolCall('openai/gpt-4o', 'a\n<function name="x">\nb\n</function>'), 'a\n\nb')
    // A tag named inside a sentence is a word, not a leftover of a call.
    assert.equal(sanitizeToolCall('openai/gpt-4o', 'a <function name="x"> b </function> c'), 'a <function name="x"> b </function> c')
    const code = 'Wrap it in `<tool_call>` tags.'
    assert.equal(sanitizeToolCall('openai/gpt-4o', code), code)
    assert.equal(sanitizeToolCall('deepseek/v3', 'x<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'), 'x')
  })

  test('never blank: the fallback is Chinese for a CJK reply, English otherwise', () => {
    assert.equal(sanitizeToolCall('minimax/m', '<minimax:tool_call><invoke name="search"><parameter name="q">北京天气</parameter></invoke></minimax:tool_call>'), ZH)
    assert.equal(sanitizeToolCall('minimax/m', '<minimax:tool_call><invoke name="search"><parameter name="q">weather in Paris</parameter></invoke></minimax:tool_call>'), EN)
  })

  test('options.fallback overrides the text', () => {
    assert.equal(sanitizeToolCall('qwen/q', '<tool_call>{"name": "f"}</tool_call>', { fallback: 'One moment…' }), 'One moment…')
  })

  test('fallback: false returns the cleaned text even when blank; text left visible is the same either way', () => {
    const call = '<minimax:tool_call><invoke name="search"><parameter name="q">北京天气</parameter></invoke></minimax:tool_call>'
    assert.equal(sanitizeToolCall('minimax/m', call, { fallback: false }), '')
    assert.equal(createResponseSanitizer().sanitize('minimax/m', `<think>查天气</think>${call}`, { fallback: false }), '')
    assert.equal(createResponseSanitizer().sanitize('minimax/m', `好的。${call}`, { fallback: false }), '好的。')
    assert.equal(createResponseSanitizer().sanitize('minimax/m', `好的。${call}`), '好的。')
  })

  test('kept reasoning comes before the fallback, so sanitizeThinkingTags still leaves a reply', () => {
    const out = sanitizeToolCall('qwen/q', '<think>I need a tool</think><tool_call>{"name": "f"}</tool_call>')
    assert.equal(out, `<think>I need a tool</think>\n\n${EN}`)
    assert.equal(sanitizeThinkingTags(out), EN)
  })

  test('empty content is returned as it is', () => {
    assert.equal(sanitizeToolCall('minimax/m', ''), '')
  })
})

describe('sanitizeThinkingTags (seed 000)', () => {
  test('blocks go with their text; R1-style and stray tags of any case too', () => {
    assert.equal(sanitizeThinkingTags('<think>计划</think>\n答案'), '答案')
    assert.equal(sanitizeThinkingTags('reasoning only in the reply\n</think>\n\nAnswer'), 'Answer')
    assert.equal(sanitizeThinkingTags('a <THINK>b</Think> c'), 'a b c')
    assert.equal(sanitizeThinkingTags('plain'), 'plain')
  })
})

describe('createResponseSanitizer (seed 000 config)', () => {
  const config = {
    enabled: true,
    providers: {
      minimax: { stripToolCalls: true, stripThinkingTags: true },
      zhipu: { stripToolCalls: true },
      qwen: { stripToolCalls: false },
    },
  }
  const call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'

  test('applies per-provider flags, with glm → zhipu and qwen-portal → qwen', () => {
    const s = createResponseSanitizer(config)
    assert.equal(s.enabled, true)
    assert.equal(s.sanitizeToolCall('glm/glm-4', `x${call}`), 'x')
    assert.equal(s.sanitizeToolCall('qwen-portal/q', `x${call}`), `x${call}`)
    assert.equal(s.sanitizeThinkingTags('<think>a</think>b', 'qwen/q'), 'b')
    assert.equal(s.sanitize('minimax/m', `<think>r</think>Done.${call}`), 'Done.')
    assert.equal(s.sanitize('minimax/m', `<think>r</think>${call}`), EN)
  })

  test('a provider turning thinking off keeps the tags', () => {
    const s = createResponseSanitizer({ providers: { minimax: { stripThinkingTags: false } } })
    assert.equal(s.sanitizeThinkingTags('<think>a</think>b', 'minimax/m'), '<think>a</think>b')
    assert.equal(s.sanitizeThinkingTags('<think>a</think>b'), 'b')
  })

  test('enabled: false returns every input unchanged', () => {
    const s = createResponseSanitizer({ ...config, enabled: false })
    const t = `<think>r</think>${call}`
    assert.equal(s.enabled, false)
    assert.equal(s.sanitizeToolCall('minimax/m', t), t)
    assert.equal(s.sanitizeThinkingTags(t), t)
    assert.equal(s.sanitize('minimax/m', t), t)
  })

  test('bad config fields are TypeErrors naming the field', () => {
    assert.throws(() => createResponseSanitizer({ providers: { minimax: { stripToolCalls: 'yes' } } }), { name: 'TypeError', message: /config\.providers\.minimax\.stripToolCalls: expected a boolean/ })
    assert.throws(() => createResponseSanitizer({ enabled: 'no' }), { name: 'TypeError', message: /config\.enabled/ })
    assert.throws(() => createResponseSanitizer([]), { name: 'TypeError', message: /config: expected an object/ })
    assert.equal(createResponseSanitizer().enabled, true)
  })
})

describe('bad input', () => {
  const fns = {
    stripMinimaxToolCallXml: (v) => stripMinimaxToolCallXml(v),
    stripModelSpecialTokens: (v) => stripModelSpecialTokens(v),
    stripDowngradedToolCallText: (v) => stripDowngradedToolCallText(v),
    stripThinkingTagsFromText: (v) => stripThinkingTagsFromText(v),
    stripReasoningTagsFromText: (v) => stripReasoningTagsFromText(v),
  }

  test('non-string text is a TypeError naming the argument', () => {
    for (const [name, fn] of Object.entries(fns)) {
      for (const v of [undefined, null, 42, {}, ['x'], Buffer.from('x')]) {
        assert.throws(() => fn(v), { name: 'TypeError', message: /^text: expected a string/ }, name)
      }
    }
    assert.throws(() => sanitizeToolCall(undefined, 'x'), { name: 'TypeError', message: /^model: expected a string, got undefined/ })
    assert.throws(() => sanitizeToolCall('minimax/m', 5), { name: 'TypeError', message: /^content: expected a string, got number/ })
    assert.throws(() => sanitizeThinkingTags(null), { name: 'TypeError', message: /^content: expected a string, got null/ })
    assert.throws(() => createResponseSanitizer().sanitize('m', ['x']), { name: 'TypeError', message: /^content: expected a string, got an array/ })
  })

  test('bad options are TypeErrors naming the option', () => {
    assert.throws(() => stripReasoningTagsFromText('x', { mode: 'loose' }), { name: 'TypeError', message: /^options\.mode: expected 'strict' or 'preserve', got "loose"/ })
    assert.throws(() => stripThinkingTagsFromText('x', { trim: true }), { name: 'TypeError', message: /^options\.trim/ })
    assert.throws(() => stripThinkingTagsFromText('x', 'strict'), { name: 'TypeError', message: /^options: expected an object/ })
    assert.throws(() => sanitizeToolCall('m', 'x', { fallback: '  ' }), { name: 'TypeError', message: /^options\.fallback: expected a non-blank string/ })
    assert.throws(() => sanitizeToolCall('m', 'x', { fallback: 1 }), { name: 'TypeError', message: /^options\.fallback/ })
    assert.throws(() => sanitizeToolCall('m', 'x', { fallback: true }), { name: 'TypeError', message: /^options\.fallback: expected a non-blank string or false, got boolean/ })
  })

  test('truncated and unbalanced tags never throw and never lose the visible text', () => {
    const cases = [
      ['<think>never closed', (t) => stripThinkingTagsFromText(t), ''],
      ['a</think></think>b', (t) => stripThinkingTagsFromText(t), 'a</think></think>b'],
      ['a</think></think>b', (t) => stripThinkingTagsFromText(t, EXACT), 'ab'],
      ['Done. <minimax:tool_call><invoke name="f"', (t) => sanitizeToolCall('minimax/m', t), 'Done.'],
      ['Done. <tool_call>{"name": "f", "arguments": {"a": ', (t) => sanitizeToolCall('qwen/q', t), 'Done.'],
      ['<|unclosed token', (t) => stripModelSpecialTokens(t), '<|unclosed token'],
      ['[Tool Call: f]\nArguments: [[[', (t) => stripDowngradedToolCallText(t), '[[['],
    ]
    for (const [t, fn, want] of cases) assert.equal(fn(t), want, t)
  })

  test('a 10 MB reply without markers comes back as the same string', () => {
    const big = 'All quiet on the reply front; nothing to clean here. '.repeat(200_000)
    assert.ok(big.length > 10_000_000)
    for (const fn of Object.values(fns)) assert.equal(fn(big), big)
    assert.equal(sanitizeToolCall('minimax/m', big), big)
    assert.equal(sanitizeThinkingTags(big), big)
    assert.equal(cleanResponse(big).content, big)
  })

  test('a 10 MB reply with markers throughout is cleaned', () => {
    const unit = 'Step. <think>why</think><|eot|>[Tool Call: f]\nArguments: {"a": 1}\n'
    const big = unit.repeat(Math.ceil(10_000_000 / unit.length))
    const out = stripThinkingTagsFromText(stripDowngradedToolCallText(stripModelSpecialTokens(stripMinimaxToolCallXml(big))), EXACT)
    assert.ok(!out.includes('<think>') && !out.includes('<|') && !out.includes('[Tool Call'))
    assert.ok(out.startsWith('Step.  \nStep.  \nStep.'))
  })
})

describe('lone UTF-16 surrogates survive', () => {
  test('cleanResponse keeps them around and inside a call', () => {
    const t = `a${HI}b <tool_call>{"name": "say", "arguments": {"text": "x${LO}y"}}</tool_call> c${LO}`
    const r = cleanResponse(t)
    assert.equal(r.content, `a${HI}b c${LO}`)
    assert.equal(r.toolCalls.length, 1)
    assert.equal(JSON.parse(r.toolCalls[0].function.arguments).text, `x${LO}y`)
    assert.equal(cleanResponse(t, { toolCalls: 'keep' }).content, t)
    const think = cleanResponse(`<think>${HI}</think>${LO}`)
    assert.equal(think.reasoning, HI)
    assert.equal(think.content, LO)
  })

  test('a text with lone surrogates and no markup is returned as it is', () => {
    const t = `${HI}plain${LO}\uFFFD`
    for (const fn of [cleanResponse]) assert.equal(fn(t).content, t)
    assert.equal(stripThinkingTagsFromText(t), t)
    assert.equal(sanitizeToolCall('minimax/m', t), t)
  })

  test('every scrubber keeps them', () => {
    assert.equal(stripMinimaxToolCallXml(`${HI}minimax:tool_call<invoke>${LO}</invoke>${LO}`), `${HI}minimax:tool_call${LO}`)
    assert.equal(stripModelSpecialTokens(`${HI} <|x${LO}|> ${LO}`), `${HI} ${LO}`)
    assert.equal(stripDowngradedToolCallText(`${HI}\n[Tool Call: f${LO}]\nArguments: "${LO}"\n${LO}`), `${HI}\n${LO}`)
    assert.equal(stripThinkingTagsFromText(`<think>${LO}</think>${HI}${LO}`), `${HI}${LO}`)
    assert.equal(stripThinkingTagsFromText(`${HI}<think>${LO}</think>${LO}`, EXACT), `${HI}${LO}`)
    assert.equal(sanitizeToolCall('minimax/m', `${HI}<invoke>${LO}</invoke>`), HI)
    assert.equal(sanitizeThinkingTags(`<think>${HI}</think>${LO}`), LO)
  })

  test('a 10 MB reply with lone surrogates throughout is cleaned and keeps them', () => {
    const unit = `${HI}text ${LO}<think>r${HI}</think> more `
    const big = unit.repeat(Math.ceil(10_000_000 / unit.length))
    const out = stripThinkingTagsFromText(big, EXACT)
    const kept = `${HI}text ${LO} more `.repeat(Math.ceil(10_000_000 / unit.length))
    assert.equal(out, kept.trim())
    // cleanResponse reads reasoning only at the start of a reply: these later `<think>` pairs
    // follow visible text, so they are text, and the reply comes back whole, surrogates and all.
    const r = cleanResponse(big, { thinking: 'strip' })
    assert.equal(r.content, big)
    // By default those late pairs are text, as cleanResponse reads them: nothing is removed.
    assert.equal(stripThinkingTagsFromText(big), big)
  })

  test('a text that already uses the first private-use block still round-trips', () => {
    const pua = '\u{100000}\u{1007FF}'
    const t = `${pua}${HI}<think>x</think>${LO}`
    assert.equal(stripThinkingTagsFromText(t, EXACT), `${pua}${HI}${LO}`)
    assert.equal(stripThinkingTagsFromText(`<think>x</think>${pua}${HI}${LO}`), `${pua}${HI}${LO}`)
  })
})
