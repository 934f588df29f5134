// This package's OpenClaw 2026.9.6 reply scrubbers side by side with OpenClaw 2026.9.6's own, on
// 50 KB replies (ASCII and half Chinese, plain and with markup: <think> blocks, special tokens, a
// <relevant-memories> block, trace lines, a legacy [TOOL_CALL] block and code fences). 2026.9.6
// runs on Node >= 24.16 only: on an older Node this file runs itself again on the Node 24 binary
// scripts/runtimes.sh caches (both sides then run in that one Node 24 process).
// Timing as in reply-vs-openclaw.mjs (interleaved batches, CPU time, median ratio over rounds).
//   node benchmark/reply-vs-openclaw96.mjs [rounds]      (ROWS=text: only the rows whose name holds it)
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import os from 'node:os'
import { canRunHere, node24, missing, VERSION } from './openclaw-2026.9.6.mjs'

const why = missing()
if (why !== null) {
  console.log(`\n(d) OpenClaw ${VERSION} side by side left out: ${why}`)
} else if (!canRunHere()) {
  const r = spawnSync(node24(), [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = r.status ?? 1
} else {
  const { loadOpenClaw, NAMES_2026_9_6 } = await import('./openclaw.mjs')
  const { sideBySide } = await import('./reply-vs-openclaw.mjs')
  const require = createRequire(import.meta.url)
  const th = require(process.env.TH_PACKAGE ?? '../index.js')
  const ROUNDS = Number(process.argv[2] ?? process.env.ROUNDS ?? 15)
  const f = (await loadOpenClaw({ version: VERSION, names: NAMES_2026_9_6.filter((n) => !['sanitizeSessionHistory', 'resolveTranscriptPolicy'].includes(n)) })).fns

  const en = 'The build failed on the second step, so I checked the log, the lockfile and the cache; the fix is to pin the toolchain and rerun it. '
  const zh = '构建在第二步失败了，我检查了日志、锁文件和缓存；解决办法是固定工具链的版本，然后重新运行一次。'
  const markup = [
    '<think>The user wants the weather; 先查一下北京的天气，再回答。</think>\n',
    '好的<|im_end|>，继续。\n',
    '<relevant-memories>\n- 用户喜欢喝茶\n</relevant-memories>\n',
    '🛠️ Exec: npm test\n',
    '[TOOL_CALL]{tool => "read", args => {"path":"a.md"}}[/TOOL_CALL]\n',
    '```js\nconst tag = "<think>"\n```\n',
    '[tool:read] {"path":"笔记.md"}\n',
  ]
  const prose = (unit, marked) => {
    let s = ''
    let i = 0
    while (Buffer.byteLength(s) < 50_000) {
      s += unit
      if (++i % 8 === 0) s += marked ? `\n\n${markup[(i / 8) % markup.length]}\n` : '\n\n'
    }
    return s
  }
  const REPLIES = {
    'ASCII, plain': prose(en, false),
    'ASCII, markup': prose(en, true),
    'half Chinese, plain': prose(en + zh, false),
    'half Chinese, markup': prose(en + zh, true),
  }
  // The prompt echo: a channel prompt with chat context, copied quoted at the top of each reply,
  // and (streaming) begun again at its end.
  const PROMPT = '[Chat messages since your last reply - for context]\nAlice: 明天开会吗？\nBob: 十点，三楼。\n\n[Current message - respond to this]\nAlice: Where is the meeting room?'
  const ECHO = { conversationContext: PROMPT }
  const STREAM = { conversationContext: PROMPT, streaming: true }
  const quoted = PROMPT.split('\n').map((l) => `> ${l}`).join('\n')
  const echoed = new Map(Object.values(REPLIES).map((t) => [t, `${quoted}\n\n${t}\n${PROMPT.slice(0, 70)}`]))
  const V96 = { openclawVersion: '2026.9.6' }
  const ERROR = { errorContext: true }
  const ocFive = (t) => f.stripReasoningTagsFromText(f.stripLegacyBracketToolCallBlocks(f.stripAssistantInternalTraceLines(f.stripRelevantMemoriesTags(f.stripModelSpecialTokens(t)))), { trim: 'none' })
  const ourFive = (t) => th.stripReasoningTagsFromText(th.stripLegacyBracketToolCallBlocks(th.stripAssistantInternalTraceLines(th.stripRelevantMemoriesTags(th.stripModelSpecialTokens(t, V96)))), { ...V96, trim: 'none' })
  const rows = [
    ['stripModelSpecialTokens', (t) => th.stripModelSpecialTokens(t, V96), f.stripModelSpecialTokens],
    ['stripRelevantMemoriesTags', th.stripRelevantMemoriesTags, f.stripRelevantMemoriesTags],
    ['stripAssistantInternalTraceLines', th.stripAssistantInternalTraceLines, f.stripAssistantInternalTraceLines],
    ['stripLegacyBracketToolCallBlocks', th.stripLegacyBracketToolCallBlocks, f.stripLegacyBracketToolCallBlocks],
    ['stripReasoningTagsFromText', (t) => th.stripReasoningTagsFromText(t, V96), f.stripReasoningTagsFromText],
    ['stripPlainTextToolCallBlocks', th.stripPlainTextToolCallBlocks, (t) => f.stripPlainTextToolCallBlocks(t, { resolveProtectedRanges: f.findCodeRegions })],
    ['the five, chained', ourFive, ocFive],
    ['sanitizeAssistantVisibleText (the delivery chain)', th.sanitizeAssistantVisibleText, f.sanitizeAssistantVisibleText],
    ['sanitizeUserFacingText (the user-facing chain)', th.sanitizeUserFacingText, f.sanitizeUserFacingText],
    ['sanitizeUserFacingText, errorContext', (t) => th.sanitizeUserFacingText(t, ERROR), (t) => f.sanitizeUserFacingText(t, ERROR)],
    ['sanitizeUserFacingText, conversationContext (a quoted copy)', (t) => th.sanitizeUserFacingText(echoed.get(t), ECHO), (t) => f.sanitizeUserFacingText(echoed.get(t), ECHO)],
    ['sanitizeUserFacingText, conversationContext, streaming', (t) => th.sanitizeUserFacingText(echoed.get(t), STREAM), (t) => f.sanitizeUserFacingText(echoed.get(t), STREAM)],
    ['the two chains (delivery, then user-facing)', (t) => th.sanitizeUserFacingText(th.sanitizeAssistantVisibleText(t)), (t) => f.sanitizeUserFacingText(f.sanitizeAssistantVisibleText(t))],
  ]
  const cpu = os.cpus()[0]
  console.log(`\n(d) 50 KB replies side by side with openclaw ${VERSION}'s own scrubbers: CPU µs per call (median of ${ROUNDS} interleaved rounds), OpenClaw / ours (median, range)`)
  console.log(`machine: ${os.cpus().length} × ${cpu ? cpu.model : 'cpu'}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  console.log('| function | reply | ours µs | OpenClaw µs | OpenClaw / ours | range |')
  console.log('| --- | --- | --- | --- | --- | --- |')
  for (const [name, ours, theirs] of rows.filter(([n]) => !process.env.ROWS || n.includes(process.env.ROWS))) {
    for (const [label, text] of Object.entries(REPLIES)) {
      if (ours(text) !== theirs(text)) throw new Error(`${name} on ${label}: outputs differ`)
      const r = sideBySide(() => ours(text), () => theirs(text), ROUNDS)
      const med = r.ratios[r.ratios.length >> 1]
      console.log(`| ${name} | ${label} | ${r.ours.toFixed(1)} | ${r.theirs.toFixed(1)} | ${med.toFixed(1)}× | ${r.ratios[0].toFixed(1)}–${r.ratios[r.ratios.length - 1].toFixed(1)}× |`)
    }
  }
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
}
