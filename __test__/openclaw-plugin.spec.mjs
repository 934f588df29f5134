// transcript-hygiene/openclaw inside OpenClaw: the package is loaded as a plugin by OpenClaw's own
// loader from `plugins.load.paths` (its openclaw.plugin.json, config schema and entry), and the
// hooks are fired by OpenClaw's hook runner with the arguments OpenClaw's call sites pass; what
// the channel receives is the payload OpenClaw's delivery step returns (fixtures/openclaw-host.mjs).
// Chinese MiniMax, GLM and Qwen replies come from the reply-case table, positives and their twins.
// openclaw 2026.3.23-2 runs in this process; 2026.9.6 (Node >= 24.16) in one Node 24 child when it
// is installed (scripts/install-reference.sh, scripts/runtimes.sh); without them the tests skip.
// On 2026.9.6 the package is also installed by OpenClaw's CLI (`openclaw plugins install` of the
// npm-packed package) and loaded from there; and integrations/openclaw.d.ts is compiled against
// each release's own plugin-sdk types (fixtures/openclaw-sdk/).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runPlugin, missing, installWithCli, PLUGIN_ID } from './fixtures/openclaw-host.mjs'
import { typecheck, TSC } from './fixtures/openclaw-sdk/typecheck.mjs'
import { findOpenClaw } from '../benchmark/openclaw.mjs'
import { firstRunOnly } from './fixtures/helpers.mjs'

const require = createRequire(import.meta.url)
const { OPTIONS } = require('../js/options.js')
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

const FALLBACK = '抱歉，请换一种方式提问。'
// Without a configured fallback: seed 000's text in the reply's language.
const SEED_FALLBACK = '抱歉，我遇到了一些技术问题。请换一种方式提问。'
const SEED_FALLBACK_EN = 'Sorry, I ran into a technical problem. Please try asking in a different way.'
// OpenClaw's model references for the families the table's case names start with.
const MODELS = { minimax: ['minimax', 'MiniMax-M2.5'], glm: ['zai', 'glm-4.6'], qwen: ['qwen-portal', 'qwen3-coder-plus'] }

const DIR = join(ROOT, '__test__', 'fixtures', 'replies')
const NEEDS_TOOLS = new Set(['glm4-36-name-line-then-json-zh'])
const CASES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(join(DIR, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
  .filter((c) => (c.lang === 'zh' || c.lang === 'mixed') && Object.keys(MODELS).some((k) => c.name.startsWith(k)))
  // A channel send knows no offered tools: a row whose call is read only when its tool is offered
  // (GLM-4's bare `name`⏎`{…}`) runs in reply-cases.spec.mjs alone.
  .filter((c) => !NEEDS_TOOLS.has(c.name))
// Negative rows seed 000's sanitizer changes on purpose, with what it sends: its thinking step
// removes an empty `<think> </think>` pair anywhere outside code (the Qwen3 `/no_think` leak), where
// cleanResponse keeps a pair inside a sentence as text. Listed so that a change either way fails here.
const SANITIZER_CHANGES = new Map([
  ['qwen3-1396-think-pair-in-chinese-question', '怎么禁止输出 标签。测试发现，即使提示词中加了/no_think，也会输出" “标签'],
  // Its thinking step also removes a lone `<think>` named in a sentence (Qwen3-VL#1765's title).
  ['qwen3-vl-1765-tags-named-in-chinese-title-zh', '非思考模型在指令微调后，回答时会带出,<tool_call>字符'],
  // The same title with the description after it (the `<tool_call>` then a Chinese word and a line break).
  ['qwen3-vl-1765-title-and-body-zh', '非思考模型在指令微调后，回答时会带出,<tool_call>字符\n测试的模型包含\nQwen3-4B-Instruct-2507\nQwen3-30B-A3B-Instruct-2507\nQwen3-14B'],
  // And a lone `</think>` named in a sentence (the GLM-4.7 twin).
  ['glm47-close-tag-named-in-a-sentence-stays-zh', 'GLM-4.7 的回复里只有  这个结束标签，没有开始标签。'],
])
const familyOf = (c) => Object.keys(MODELS).find((k) => c.name.startsWith(k))

const run = (family, sessionKey, channelId) => ({ run: { provider: MODELS[family][0], model: MODELS[family][1], sessionKey, channelId } })
const send = (text, channel, extra) => ({ send: { text, channel, to: 'ou_42', ...extra } })
const write = (message, sessionKey) => ({ write: { message, sessionKey } })
const assistant = (family, content, extra) => ({ role: 'assistant', api: 'openai-completions', provider: MODELS[family][0], model: MODELS[family][1], content, stopReason: 'stop', timestamp: 1, ...extra })

const MINIMAX_CALL = '<minimax:tool_call>\n<invoke name="exec">\n<parameter name="command">date "+%H:%M:%S"</parameter>\n</invoke>\n</minimax:tool_call>'
const TWIN = '在 MiniMax 的输出里，工具调用写成 `<minimax:tool_call>` 标签，例如：\n```xml\n<invoke name="exec"><parameter name="command">ls</parameter></invoke>\n```'

/** The sessions every release runs: one OpenClaw plugin load per config, then its steps. */
const SESSIONS = {
  table: {
    config: { fallback: FALLBACK },
    steps: CASES.flatMap((c, i) => [run(familyOf(c), `agent:main:feishu:dm:ou_${i}`, 'feishu'), send(c.input, 'feishu', { sessionKey: `agent:main:feishu:dm:ou_${i}` })]),
  },
  // The stored transcript.
  transcript: {
    config: { fallback: FALLBACK },
    steps: [
      write(assistant('minimax', [{ type: 'thinking', thinking: '用户要时间', thinkingSignature: 'sig' }, { type: 'text', text: `<think>先查时间</think>让我帮你查询。${MINIMAX_CALL}` }, { type: 'toolCall', id: 'call_1', name: 'exec', arguments: { command: 'date' } }], { stopReason: 'toolUse' }), 'agent:main:main'),
      write(assistant('minimax', [{ type: 'text', text: MINIMAX_CALL }]), 'agent:main:main'),
      write(assistant('minimax', [{ type: 'text', text: TWIN }]), 'agent:main:main'),
      write({ role: 'user', content: `请解释 ${MINIMAX_CALL}`, timestamp: 2 }, 'agent:main:main'),
      write({ role: 'toolResult', toolCallId: 'call_1', toolName: 'exec', content: [{ type: 'text', text: '<think>x</think>' }], isError: false, timestamp: 3 }, 'agent:main:main'),
      // The model written with the message is the model of the turn when no run was announced.
      send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu', { sessionKey: 'agent:main:main' }),
    ],
  },
  seed: {
    config: undefined,
    steps: [
      run('minimax', 'agent:main:main', 'telegram'),
      // Seed 000's own example: a reply that is only a call gets the fallback, never an empty message.
      send('<invoke><exec><cmd>date "+%H:%M:%S"</cmd></exec></invoke>', 'telegram'),
      send('你好，现在是下午3点。', 'telegram'),
      send(`让我帮你查询。${MINIMAX_CALL}`, 'telegram'),
      // With media, a caption that was only markup becomes empty: the image is still sent.
      send(MINIMAX_CALL, 'telegram', { mediaUrls: ['https://example.com/chart.png'] }),
      send('<think>用户问时间，我需要调用工具。</think>', 'telegram'),
      send('', 'telegram', { mediaUrls: ['https://example.com/chart.png'] }),
    ],
  },
  // Per provider (seed 000's config): MiniMax's markup is left alone, GLM's is not. Which applies
  // is the model of the turn: per session key where the host gives one, else per channel.
  perModel: {
    config: { providers: { minimax: { stripToolCalls: false, stripThinkingTags: false } } },
    steps: [
      run('minimax', 'agent:main:feishu:dm:ou_1', 'feishu'),
      run('glm', 'agent:main:telegram:dm:7', 'telegram'),
      send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu', { sessionKey: 'agent:main:feishu:dm:ou_1' }),
      send(`让我帮你查询。${MINIMAX_CALL}`, 'telegram', { sessionKey: 'agent:main:telegram:dm:7' }),
      // A second conversation on the same channel, on GLM; then the first one's reply is sent.
      run('glm', 'agent:main:feishu:dm:ou_2', 'feishu'),
      send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu', { sessionKey: 'agent:main:feishu:dm:ou_1' }),
    ],
  },
  transcriptOff: { config: { transcript: false }, steps: [write(assistant('minimax', [{ type: 'text', text: `好的${MINIMAX_CALL}` }]))] },
  disabled: { config: { enabled: false }, steps: [send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu')] },
  badConfig: { config: { fallback: 42 }, steps: [send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu')] },
}

const ANY_MARKUP = /<\/?(?:minimax:tool_call|invoke|parameter|tool_call|function|think)\b|<\|/

function check(version, out) {
  const by = Object.fromEntries(Object.keys(SESSIONS).map((k, i) => [k, out[i]]))

  test(`${version}: OpenClaw's loader loads the plugin from the manifest and entry, with no diagnostic`, () => {
    const { plugin } = by.table
    assert.deepEqual([plugin.status, plugin.error, plugin.diagnostics], ['loaded', null, []])
    // The model of the turn is announced by llm_input on 2026.3.x, by model_call_started where
    // llm_input needs a conversation-access grant.
    const start = version.startsWith('2026.9.') ? 'model_call_started' : 'llm_input'
    assert.deepEqual(plugin.hooks.sort(), ['before_message_write', 'message_sending', start].sort())
  })

  test(`${version}: Chinese MiniMax / GLM / Qwen replies from the reply table reach the channel clean; their twins as written`, () => {
    const sent = by.table.results.filter((r) => r !== null)
    assert.equal(sent.length, CASES.length)
    assert.ok(CASES.length >= 25 && CASES.some((c) => c.kind === 'negative') && CASES.some((c) => c.real))
    CASES.forEach((c, i) => {
      const { text, cancelled } = sent[i]
      assert.equal(cancelled, false)
      if (SANITIZER_CHANGES.has(c.name)) {
        assert.equal(text, SANITIZER_CHANGES.get(c.name), `${c.name}: changed on purpose`)
      } else if (c.kind === 'negative') {
        assert.equal(text, c.input, `${c.name}: a twin is sent as written`)
      } else {
        assert.equal(text, c.content.trim() === '' ? FALLBACK : c.content, `${c.name}`)
        assert.doesNotMatch(text, ANY_MARKUP, c.name)
      }
    })
  })

  test(`${version}: never an empty message: seed 000's fallback, unless media goes with it`, () => {
    const [, onlyCall, plain, mixed, caption, onlyThinking, mediaOnly] = by.seed.results
    assert.equal(onlyCall.text, SEED_FALLBACK_EN, 'no Chinese in the reply')
    assert.equal(plain.text, '你好，现在是下午3点。')
    assert.equal(mixed.text, '让我帮你查询。')
    assert.equal(caption.text, '')
    assert.equal(onlyThinking.text, SEED_FALLBACK)
    assert.equal(mediaOnly.text, '')
  })

  test(`${version}: the provider config applies per the model of the turn`, () => {
    const [, , feishu, telegram, , feishuAgain] = by.perModel.results
    assert.equal(feishu.text, `让我帮你查询。${MINIMAX_CALL}`, 'MiniMax turn: stripToolCalls false')
    assert.equal(telegram.text, '让我帮你查询。', 'GLM turn: cleaned')
    if (version.startsWith('2026.9.')) {
      assert.equal(feishuAgain.text, `让我帮你查询。${MINIMAX_CALL}`, 'the session key names the MiniMax turn')
    } else {
      assert.equal(feishuAgain.text, '让我帮你查询。', 'no session key in the context: the channel\'s last model (GLM)')
    }
  })

  test(`${version}: before_message_write stores assistant text clean, invents no call, leaves other messages`, () => {
    const [withCall, onlyCall, twin, user, toolResult, sentAfter] = by.transcript.results
    const m = withCall.message
    assert.deepEqual(m.content.map((b) => b.type), ['thinking', 'text', 'toolCall'], 'no call added, none dropped')
    assert.equal(m.content[1].text, '让我帮你查询。')
    assert.deepEqual(m.content[0], { type: 'thinking', thinking: '用户要时间', thinkingSignature: 'sig' })
    assert.deepEqual(m.content[2], { type: 'toolCall', id: 'call_1', name: 'exec', arguments: { command: 'date' } })
    assert.equal(m.stopReason, 'toolUse')
    assert.deepEqual([m.provider, m.model, m.timestamp], ['minimax', 'MiniMax-M2.5', 1])
    assert.deepEqual(onlyCall.message.content, [{ type: 'text', text: FALLBACK }], 'what the channel was sent')
    assert.equal(onlyCall.message.stopReason, 'stop')
    for (const r of [twin, user, toolResult]) assert.equal(r.same, true)
    assert.equal(sentAfter.text, '让我帮你查询。')
  })

  test(`${version}: config: transcript false, enabled false, a wrong type rejected by OpenClaw from the manifest's schema`, () => {
    assert.equal(by.transcriptOff.results[0].same, true)
    assert.deepEqual(by.disabled.plugin.hooks, [])
    assert.equal(by.disabled.results[0].text, `让我帮你查询。${MINIMAX_CALL}`)
    assert.equal(by.badConfig.plugin.status, 'error')
    assert.match(by.badConfig.plugin.error, /invalid config.*fallback/)
    assert.equal(by.badConfig.results[0].text, `让我帮你查询。${MINIMAX_CALL}`)
  })
}

test('openclaw.plugin.json: the id, name and description of the entry, and the config keys of the options table', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'openclaw.plugin.json'), 'utf8'))
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  assert.equal(manifest.id, PLUGIN_ID)
  const { id, name, description } = require(join(ROOT, pkg.openclaw.extensions[0])).default
  assert.deepEqual({ id, name, description }, { id: manifest.id, name: manifest.name, description: manifest.description })
  assert.ok(pkg.files.includes('openclaw.plugin.json'))
  assert.deepEqual(Object.keys(manifest.configSchema.properties).sort(), Object.keys(OPTIONS.openclawPlugin).sort())
  assert.equal(manifest.configSchema.additionalProperties, false)
})

const VERSIONS = ['2026.3.23-2', '2026.9.6']
// The runtime suite runs this file again on Node 24 (__test__/runtimes/rerun.mjs). The first run
// already ran 2026.9.6's CLI and plugin runs in a Node 24 child, and tsc's answer does not depend on
// the Node: the rerun skips the type checks, the CLI install and the 2026.9.6 runs.
const AGAIN = firstRunOnly('same OpenClaw, the same Node 24 for 2026.9.6 and its CLI; tsc does not depend on the Node')
const RERUN = AGAIN !== false
// Started now: both compile while the plugin runs below load OpenClaw.
const typechecks = VERSIONS.map((v) => (RERUN || findOpenClaw(v) === null || !existsSync(TSC) ? null : typecheck(findOpenClaw(v)).catch((err) => ({ status: null, output: err.stack }))))
VERSIONS.forEach((version, i) => {
  test(`${version}: integrations/openclaw.d.ts against this release's own plugin-sdk types (tsc --strict)`, async (t) => {
    if (typechecks[i] === null) return t.skip(RERUN ? AGAIN : `openclaw@${version} or TypeScript is not installed`)
    const { status, output } = await typechecks[i]
    assert.equal(status, 0, `tsc on __test__/fixtures/openclaw-sdk/plugin-types.mts:\n${output}`)
  })
})

// On 2026.9.6, also the package as `openclaw plugins install` puts it in place: packed with its
// binary, installed by OpenClaw's CLI (started now, beside the runs below), loaded from there.
const INSTALL_VERSION = '2026.9.6'
const installing = missing(INSTALL_VERSION) === null && !RERUN ? installWithCli(INSTALL_VERSION).catch((err) => ({ state: null, status: null, output: err.stack })) : null
const INSTALLED = {
  config: { fallback: FALLBACK },
  steps: [run('minimax', 'agent:main:feishu:dm:ou_9', 'feishu'), send(`让我帮你查询。${MINIMAX_CALL}`, 'feishu', { sessionKey: 'agent:main:feishu:dm:ou_9' }), send(MINIMAX_CALL, 'feishu', { sessionKey: 'agent:main:feishu:dm:ou_9' })],
}

function checkInstalled(version, installed, { plugin, results }) {
  test(`${version}: \`openclaw plugins install\` of the packed package, binary included; loaded from where it was installed, it cleans what the channel gets`, () => {
    assert.equal(installed.status, 0, installed.output)
    assert.match(installed.output, /Installed plugin: transcript-hygiene/)
    assert.deepEqual([plugin.status, plugin.error, plugin.diagnostics], ['loaded', null, []])
    assert.ok(plugin.source.startsWith(join(installed.state, 'extensions', PLUGIN_ID)), `loaded from ${plugin.source}`)
    assert.deepEqual(plugin.hooks.sort(), ['before_message_write', 'message_sending', 'model_call_started'])
    assert.deepEqual(results.slice(1), [{ text: '让我帮你查询。', cancelled: false }, { text: FALLBACK, cancelled: false }])
  })
}

for (const version of VERSIONS) {
  const why = missing(version) ?? (version === '2026.9.6' && RERUN ? AGAIN : null)
  if (why !== null) {
    test(`${version}: the plugin inside OpenClaw`, (t) => t.skip(why))
    continue
  }
  const installed = version === INSTALL_VERSION ? await installing : null
  try {
    const extra = installed?.status === 0 ? [{ ...INSTALLED, installedIn: installed.state }] : []
    const out = await runPlugin(version, [...Object.values(SESSIONS), ...extra])
    check(version, out)
    if (installed !== null) checkInstalled(version, installed, extra.length > 0 ? out.at(-1) : { plugin: {}, results: [] })
  } finally {
    if (installed?.state) rmSync(installed.state, { recursive: true, force: true })
  }
}
