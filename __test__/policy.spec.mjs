// resolveTranscriptPolicy: the §2.3 table of OpenClaw 2026.3.23-2, provider aliases, field names.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th } from './fixtures/helpers.mjs'

// The 2026.3.23-2 table (2026.9.6's resolution is checked in openclaw96-parity.spec.mjs):
// pinned, whatever the package default is.
th.setOpenClawVersion('2026.3.23')

const { resolveTranscriptPolicy } = th

const TSIG = { allowBase64Only: true, includeCamelCase: true }

// flags: S = sanitizeMode, ids = toolCallIdMode ('-' = none), then the ✔ columns by name.
// Pairing repair is on in every row; sanitizeThinkingSignatures is off in every row.
function row(provider, modelApi, modelId, S, ids, on = []) {
  return { provider, modelApi, modelId, S, ids, on: new Set(on) }
}
const ANTHROPIC = ['pres', 'drop', 'vA', 'syn']
const GOOGLE = ['tsig', 'gOrd', 'vG', 'syn']
const COMPAT = ['gOrd', 'vG', 'vA']

const TABLE = [
  row('anthropic', 'anthropic-messages', 'claude-opus-4-6', 'full', 'strict', ANTHROPIC),
  row('amazon-bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-sonnet-4-5-v1:0', 'full', 'strict', ANTHROPIC),
  row('anthropic-vertex', 'anthropic-messages', 'claude-sonnet-4', 'full', 'strict', ANTHROPIC),
  row('minimax', 'anthropic-messages', 'MiniMax-M2.5', 'full', 'strict', ['pres', 'vA', 'syn']),
  row('kimi', 'anthropic-messages', 'kimi-k2-thinking', 'full', 'strict', ['vA', 'syn']),
  row('kimi-coding', 'anthropic-messages', 'k2p5', 'full', 'strict', ['vA', 'syn']),
  row('google', 'google-generative-ai', 'gemini-2.5-pro', 'full', 'strict', GOOGLE),
  row('google-gemini-cli', 'google-gemini-cli', 'gemini-3-pro-preview', 'full', 'strict', GOOGLE),
  row('google-gemini-cli', 'google-gemini-cli', 'claude-sonnet-4-5', 'full', 'strict', GOOGLE),
  row('google-vertex', 'google-vertex', 'gemini-2.5-flash', 'images-only', '-'),
  row('mistral', 'openai-completions', 'mistral-large-latest', 'full', 'strict9', COMPAT),
  row('mistral', 'openai-completions', 'some-other-model', 'full', 'strict9', COMPAT),
  row('mistral', undefined, 'mistral-large-latest', 'full', 'strict9'),
  row('openrouter', 'openai-completions', 'google/gemini-2.5-pro', 'full', 'strict', ['tsig']),
  row('openrouter', 'openai-completions', 'mistralai/mistral-large', 'images-only', 'strict'),
  row('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4', 'images-only', 'strict'),
  row('opencode', 'openai-completions', 'gemini-2.5-flash', 'full', 'strict', ['tsig']),
  row('kilocode', 'openai-completions', 'gemini-2.5-pro', 'full', 'strict', ['tsig', ...COMPAT]),
  row('github-copilot', 'openai-completions', 'claude-sonnet-4', 'images-only', 'strict', ['drop', ...COMPAT]),
  row('github-copilot', 'openai-responses', 'gpt-5.2', 'images-only', 'strict'),
  row('vllm', 'openai-completions', 'qwen3-coder', 'images-only', 'strict', COMPAT),
  row('moonshot', 'openai-completions', 'kimi-k2', 'images-only', 'strict', COMPAT),
  row('xai', 'openai-completions', 'grok-4', 'images-only', 'strict', COMPAT),
  row('zai', 'openai-completions', 'glm-4.6', 'images-only', 'strict', COMPAT),
  row('groq', 'openai-completions', 'mistral-saba-24b', 'images-only', 'strict', COMPAT),
  row('minimax', 'openai-completions', 'MiniMax-M2.5', 'images-only', 'strict', COMPAT),
  row('my-proxy', 'openai-responses', 'whatever-1', 'images-only', 'strict'),
  row('openai', 'openai-responses', 'gpt-5', 'images-only', '-'),
  row('openai', 'openai', 'gpt-4o', 'images-only', '-'),
  row('openai', 'openai-completions', 'gpt-4o', 'images-only', 'strict'),
  row('openai-codex', 'openai-codex-responses', 'gpt-5-codex', 'images-only', '-'),
  row('', 'openai-responses', 'gpt-5', 'images-only', '-'),
  row(undefined, 'openai-responses', 'gpt-5', 'images-only', '-'),
  row('ollama', 'ollama', 'llama3.1', 'images-only', '-'),
]

/** The policy a table row describes, in resolveTranscriptPolicy's shape. */
function expected(r) {
  const p = {
    sanitizeMode: r.S,
    sanitizeToolCallIds: r.ids !== '-',
    repairToolUseResultPairing: true,
    preserveSignatures: r.on.has('pres'),
    sanitizeThinkingSignatures: false,
    dropThinkingBlocks: r.on.has('drop'),
    applyGoogleTurnOrdering: r.on.has('gOrd'),
    validateGeminiTurns: r.on.has('vG'),
    validateAnthropicTurns: r.on.has('vA'),
    allowSyntheticToolResults: r.on.has('syn'),
  }
  if (r.ids !== '-') p.toolCallIdMode = r.ids
  if (r.on.has('tsig')) p.sanitizeThoughtSignatures = TSIG
  return p
}

/** The policy with optional fields that are undefined removed, so either representation compares. */
function defined(p) {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined))
}

describe('resolveTranscriptPolicy: the provider table', () => {
  for (const r of TABLE) {
    const name = `${JSON.stringify(r.provider)} / ${JSON.stringify(r.modelApi)} / ${r.modelId}`
    test(name, () => {
      const got = resolveTranscriptPolicy({ provider: r.provider, modelApi: r.modelApi, modelId: r.modelId })
      assert.deepEqual(defined(got), expected(r))
    })
  }
})

describe('resolveTranscriptPolicy: provider normalisation and aliases', () => {
  const resolve = (provider, modelApi, modelId) => defined(resolveTranscriptPolicy({ provider, modelApi, modelId }))

  test('kimi-code and kimi-coding are kimi: Anthropic signatures are not preserved', () => {
    const kimi = resolve('kimi', 'anthropic-messages', 'kimi-for-coding')
    assert.equal(kimi.preserveSignatures, false)
    assert.deepEqual(resolve('kimi-code', 'anthropic-messages', 'kimi-for-coding'), kimi)
    assert.deepEqual(resolve('kimi-coding', 'anthropic-messages', 'kimi-for-coding'), kimi)
    // A provider that is not kimi keeps signatures over the same API.
    assert.equal(resolve('kimi-other', 'anthropic-messages', 'kimi-for-coding').preserveSignatures, true)
  })

  test('bedrock and aws-bedrock are amazon-bedrock: Claude drops thinking blocks', () => {
    for (const alias of ['bedrock', 'aws-bedrock', 'amazon-bedrock']) {
      const p = resolve(alias, 'bedrock-converse-stream', 'anthropic.claude-3-7-sonnet')
      assert.equal(p.dropThinkingBlocks, true, alias)
      assert.equal(p.preserveSignatures, true, alias)
    }
    // The Anthropic family comes from the provider too: over a non-Anthropic API it still counts.
    assert.equal(resolve('bedrock', 'openai-completions', 'anthropic.claude-3-7-sonnet').validateAnthropicTurns, true)
    assert.equal(resolve('bedrock', 'openai-completions', 'anthropic.claude-3-7-sonnet').allowSyntheticToolResults, true)
  })

  test('z.ai and z-ai are zai: a strict OpenAI-compatible provider', () => {
    const zai = resolve('zai', 'openai-completions', 'glm-4.6')
    assert.deepEqual(resolve('z.ai', 'openai-completions', 'glm-4.6'), zai)
    assert.deepEqual(resolve('z-ai', 'openai-completions', 'glm-4.6'), zai)
    assert.equal(zai.validateAnthropicTurns, true)
    assert.equal(zai.toolCallIdMode, 'strict')
  })

  test('qwen is qwen-portal and doubao / bytedance are volcengine', () => {
    const qwen = resolve('qwen-portal', 'openai-completions', 'qwen3-coder-plus')
    assert.deepEqual(resolve('qwen', 'openai-completions', 'qwen3-coder-plus'), qwen)
    assert.equal(qwen.applyGoogleTurnOrdering, true)
    const volc = resolve('volcengine', 'openai-completions', 'doubao-seed-1-6')
    assert.deepEqual(resolve('doubao', 'openai-completions', 'doubao-seed-1-6'), volc)
    assert.deepEqual(resolve('bytedance', 'openai-completions', 'doubao-seed-1-6'), volc)
    assert.equal(volc.validateGeminiTurns, true)
  })

  test('opencode-zen is opencode (Gemini thought signatures, no compat turn validation)', () => {
    const p = resolve('opencode-zen', 'openai-completions', 'gemini-2.5-pro')
    assert.deepEqual(p, resolve('opencode', 'openai-completions', 'gemini-2.5-pro'))
    assert.deepEqual(p.sanitizeThoughtSignatures, TSIG)
    assert.equal(p.validateGeminiTurns, false)
  })

  test('provider ids are trimmed and lowercased', () => {
    assert.deepEqual(resolve('  Anthropic ', 'anthropic-messages', 'claude-opus-4-6'), resolve('anthropic', 'anthropic-messages', 'claude-opus-4-6'))
    assert.deepEqual(resolve('MISTRAL', 'openai-completions', 'x').toolCallIdMode, 'strict9')
    assert.deepEqual(resolve(' OpenAI', 'openai-responses', 'gpt-5').sanitizeToolCallIds, false)
  })

  test('model ids are matched case-insensitively (Claude hint, Gemini hint)', () => {
    assert.equal(resolve('anthropic', 'anthropic-messages', 'Claude-Opus-4-6').dropThinkingBlocks, true)
    assert.deepEqual(resolve('openrouter', 'openai-completions', 'Google/Gemini-2.5-Pro').sanitizeThoughtSignatures, TSIG)
  })

  test('model-id based Mistral detection does not apply to other providers', () => {
    assert.equal(resolve('openrouter', 'openai-completions', 'mistralai/mistral-large').toolCallIdMode, 'strict')
    assert.equal(resolve('groq', 'openai-completions', 'mixtral-8x7b').toolCallIdMode, 'strict')
  })

  test('missing or non-object params resolve like no provider at all', () => {
    const none = resolve(undefined, undefined, undefined)
    assert.deepEqual(defined(resolveTranscriptPolicy({})), none)
    assert.deepEqual(defined(resolveTranscriptPolicy()), none)
    assert.equal(none.sanitizeMode, 'images-only')
    assert.equal(none.sanitizeToolCallIds, false)
    assert.equal(none.repairToolUseResultPairing, true)
  })
})

describe('resolveTranscriptPolicy: field names', () => {
  const REQUIRED = [
    'sanitizeMode',
    'sanitizeToolCallIds',
    'repairToolUseResultPairing',
    'preserveSignatures',
    'sanitizeThinkingSignatures',
    'dropThinkingBlocks',
    'applyGoogleTurnOrdering',
    'validateGeminiTurns',
    'validateAnthropicTurns',
    'allowSyntheticToolResults',
  ]
  const OPTIONAL = ['toolCallIdMode', 'sanitizeThoughtSignatures']

  test('every policy has exactly the documented fields, with the documented types', () => {
    for (const r of TABLE) {
      const p = resolveTranscriptPolicy({ provider: r.provider, modelApi: r.modelApi, modelId: r.modelId })
      const keys = Object.keys(p)
      for (const k of REQUIRED) assert.ok(keys.includes(k), `${k} missing for ${r.provider}`)
      for (const k of keys) assert.ok(REQUIRED.includes(k) || OPTIONAL.includes(k), `unexpected field ${k}`)
      assert.ok(p.sanitizeMode === 'full' || p.sanitizeMode === 'images-only')
      for (const k of REQUIRED.slice(1)) assert.equal(typeof p[k], 'boolean', k)
      if (p.toolCallIdMode !== undefined) assert.ok(['strict', 'strict9'].includes(p.toolCallIdMode))
      if (p.sanitizeThoughtSignatures !== undefined) assert.deepEqual(Object.keys(p.sanitizeThoughtSignatures).sort(), ['allowBase64Only', 'includeCamelCase'])
    }
  })

  test('each call returns a fresh object the caller may modify', () => {
    const a = resolveTranscriptPolicy({ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' })
    a.sanitizeMode = 'changed'
    a.sanitizeThoughtSignatures.allowBase64Only = false
    const b = resolveTranscriptPolicy({ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' })
    assert.equal(b.sanitizeMode, 'full')
    assert.equal(b.sanitizeThoughtSignatures.allowBase64Only, true)
  })
})
