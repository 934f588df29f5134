// index.d.ts against index.js: every runtime export is declared and documented, every declared
// function exists, no `any` leaks into the public types, the declared result shapes match what the
// functions return, and (when TypeScript is installed) a usage file type-checks under --strict.
// The .d.ts is read with plain regexes; no TypeScript dependency is needed for the first parts.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('../', import.meta.url))
const DTS_PATH = join(ROOT, 'index.d.ts')
const DTS = readFileSync(DTS_PATH, 'utf8')
const runtime = require('../index.js')

/** The .d.ts without comments (string literals in it hold no comment markers). */
const CODE = DTS.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')

const declaredFunctions = new Set([...CODE.matchAll(/^export\s+(?:declare\s+)?function\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]))
const declaredConsts = new Set([...CODE.matchAll(/^export\s+declare\s+const\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]))
const declaredClasses = new Set([...CODE.matchAll(/^export\s+declare\s+class\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]))

/** Property names of `export interface NAME { ... }` (own members only), split by optionality. */
function interfaceMembers(name) {
  const start = DTS.search(new RegExp(`^export interface ${name}\\b[^{]*\\{`, 'm'))
  assert.ok(start >= 0, `interface ${name} is declared`)
  const open = DTS.indexOf('{', start)
  const close = DTS.indexOf('\n}', open)
  const body = DTS.slice(open + 1, close).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')
  const required = new Set()
  const optional = new Set()
  for (const m of body.matchAll(/^ {2}([A-Za-z_$][\w$]*)(\??):/gm)) (m[2] ? optional : required).add(m[1])
  return { required, optional, all: new Set([...required, ...optional]) }
}

/** Checks an object's own keys against a declared interface (plus inherited/intersected keys). */
function assertShape(value, names, extra = {}) {
  const required = new Set(Object.keys(extra).filter((k) => extra[k] === 'required'))
  const all = new Set(Object.keys(extra))
  for (const n of names) {
    const m = interfaceMembers(n)
    for (const k of m.required) required.add(k)
    for (const k of m.all) all.add(k)
  }
  for (const k of Object.keys(value)) assert.ok(all.has(k), `runtime key ${k} is declared in ${names.join(' & ')}`)
  for (const k of required) assert.ok(k in value, `declared required key ${k} of ${names.join(' & ')} is present`)
}

describe('index.d.ts', () => {
  test('declares every runtime export', () => {
    const missing = Object.keys(runtime).filter((k) => !declaredFunctions.has(k) && !declaredConsts.has(k) && !declaredClasses.has(k))
    assert.deepEqual(missing, [], `exported by index.js but not declared in index.d.ts: ${missing.join(', ')}`)
  })

  test('every declared function and const exists at runtime with the right kind', () => {
    assert.ok(declaredFunctions.size > 0)
    for (const name of declaredFunctions) assert.equal(typeof runtime[name], 'function', `${name} is a function at runtime`)
    for (const name of declaredConsts) assert.ok(name in runtime, `${name} exists at runtime`)
    for (const name of declaredClasses) assert.equal(typeof runtime[name], 'function', `class ${name} exists at runtime`)
  })

  test('contains no `any`', () => {
    for (const re of [/:\s*any\b/, /<\s*any\s*>/, /\bany\s*\[\]/]) {
      const lines = DTS.split('\n').filter((l) => re.test(l))
      assert.deepEqual(lines, [], `index.d.ts matches ${re}`)
    }
    const hits = CODE.split('\n').filter((l) => /\bany\b/.test(l))
    assert.deepEqual(hits, [], 'no `any` outside comments')
  })

  test('documents every export with a JSDoc comment', () => {
    const seen = new Set()
    const undocumented = []
    const re = /^export\s+(?:declare\s+)?(?:function|const|interface|type|class|enum)\s+([A-Za-z_$][\w$]*)/gm
    for (const m of DTS.matchAll(re)) {
      if (seen.has(m[1])) continue // a later overload shares the first one's comment
      seen.add(m[1])
      if (!/\*\/\s*$/.test(DTS.slice(0, m.index))) undocumented.push(m[1])
    }
    assert.ok(seen.size > 40, 'found the exports')
    assert.deepEqual(undocumented, [])
  })

  test('is self-contained and is what package.json ships', () => {
    assert.doesNotMatch(CODE, /^\s*import\b/m)
    assert.doesNotMatch(CODE, /binding/)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    assert.equal(pkg.types, 'index.d.ts')
    assert.ok(pkg.files.includes('index.d.ts'))
    // require → index.d.ts, import → index.d.mts (which re-exports index.d.ts), each beside its entry.
    assert.deepEqual(pkg.exports['.'].require, { types: './index.d.ts', default: './index.js' })
    assert.deepEqual(pkg.exports['.'].import, { types: './index.d.mts', default: './index.mjs' })
    assert.ok(pkg.files.includes('index.d.mts'))
  })

  test('index.d.mts re-exports index.d.ts and declares the default export, nothing else', () => {
    const mts = readFileSync(join(ROOT, 'index.d.mts'), 'utf8').replace(/\/\/[^\n]*/g, '').trim().split('\n').map((l) => l.trim())
    assert.deepEqual(mts.sort(), ["export * from './index.js'", 'export default th', "import * as th from './index.js'"].sort())
  })
})

describe('declared result shapes match the runtime', () => {
  test('ResponseStreamCleaner', () => {
    const s = new runtime.ResponseStreamCleaner({})
    for (const d of ['Hi <think>x</think> ', '<tool_call>{"name": "f", "arguments": {}}</tool_call>']) assertShape(s.push(d), ['ResponseStreamChunk'])
    assertShape(s.finish(), ['ResponseStreamEnd', 'ResponseStreamChunk'])
  })

  const calls = [{ role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 5 }]

  test('resolveTranscriptPolicy', () => {
    // The 2026.3.23 shape when named (the default, 2026.9.6, has TranscriptPolicy2026_9's).
    for (const p of [{ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }, { provider: 'openai', modelApi: 'openai-responses' }, {}]) {
      assertShape(runtime.resolveTranscriptPolicy({ ...p, openclawVersion: '2026.3.23' }), ['TranscriptPolicy'])
    }
    // The override type accepts every policy field.
    const override = interfaceMembers('TranscriptPolicyOverride').all
    for (const k of interfaceMembers('TranscriptPolicy').all) assert.ok(override.has(k), `TranscriptPolicyOverride has ${k}`)
  })

  test('repairToolUseResultPairing and its added results', () => {
    const r = runtime.repairToolUseResultPairing(calls)
    assertShape(r, ['ToolUseResultPairingRepair'])
    assert.equal(r.added.length, 1)
    assertShape(r.added[0], ['ToolResultMessage'])
    assertShape(runtime.repairToolUseResultPairing(calls, { report: true }), ['ToolUseResultPairingRepair'], { changes: 'required' })
  })

  test('repairToolCallInputs', () => {
    assertShape(runtime.repairToolCallInputs(calls), ['ToolCallInputsRepair'])
    assertShape(runtime.repairToolCallInputs(calls, { report: true }), ['ToolCallInputsRepair'], { changes: 'required' })
  })

  test('sanitizeSessionHistory with report: true, and Change', () => {
    const r = runtime.sanitizeSessionHistory({ messages: calls, provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', report: true })
    assertShape(r, ['SanitizeSessionHistoryReport'])
    assert.ok(r.changes.length > 0)
    for (const c of r.changes) assertShape(c, ['Change'])
    const bootstrap = r.messages[0]
    assertShape(bootstrap, ['UserMessage'])
    assertShape(r.messages[1].usage, ['Usage'])
    assertShape(r.messages[1].usage.cost, ['UsageCost'])
  })

  test('image cache figures and sanitizeImageBlocks', () => {
    assertShape(runtime.imageCacheStats(), ['ImageCacheStats'])
    assertShape(runtime.configureImageCache({ maxBytes: runtime.imageCacheStats().maxBytes }), ['ImageCacheStats'])
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'
    assertShape(runtime.sanitizeImageBlocks([{ type: 'image', data: png, mimeType: 'image/png' }], 'x'), ['SanitizeImageBlocksResult'])
  })

  test('applyGoogleTurnOrderingFix', () => {
    assertShape(runtime.applyGoogleTurnOrderingFix({ messages: calls, modelApi: 'google-generative-ai' }), ['GoogleTurnOrderingFix'])
  })

  test('cleanResponse, changed and unchanged content', () => {
    for (const t of ['plain text', 'a <tool_call>{"name":"f","arguments":{}}</tool_call>']) {
      assertShape(runtime.cleanResponse(t), ['CleanedResponse'])
    }
  })

  test('createResponseSanitizer', () => {
    const s = runtime.createResponseSanitizer({ enabled: true })
    assert.deepEqual(Object.keys(s).sort(), ['enabled', 'sanitize', 'sanitizeThinkingTags', 'sanitizeToolCall'])
    const body = DTS.slice(DTS.indexOf('export interface ResponseSanitizer {'))
    for (const k of Object.keys(s)) assert.match(body.slice(0, body.indexOf('\n}')), new RegExp(`\\b${k}\\b`), `ResponseSanitizer declares ${k}`)
  })

  test('repairSessionFile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'th-types-'))
    try {
      const file = join(dir, 's.jsonl')
      writeFileSync(file, '{"type":"session","id":"s"}\n{"broken"\n')
      const r = runtime.repairSessionFile(file)
      assert.equal(r.repaired, true)
      assertShape(r, ['SessionFileRepairResult'])
      assertShape(runtime.repairSessionFile(join(dir, 'missing.jsonl')), ['SessionFileRepairResult'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('index.d.ts type-checks a usage file', () => {
  const tscBin = join(ROOT, 'node_modules', '.bin', 'tsc')
  const tscJs = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const have = existsSync(tscBin) && existsSync(tscJs)

  test('tsc --strict on __test__/fixtures/usage.ts and the README quick starts', { timeout: 120_000 }, (t) => {
    if (!have) {
      t.skip('TypeScript is not installed in node_modules')
      return
    }
    // The quick starts import 'transcript-hygiene': the package's own name resolves to itself
    // through the exports map (the .mts files as ES modules, so through index.d.mts).
    const quick = join(ROOT, '__test__', 'fixtures', 'quickstart')
    const quickFiles = readdirSync(quick).map((f) => join(quick, f))
    const args = [tscJs, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--pretty', 'false', join(ROOT, '__test__', 'fixtures', 'usage.ts'), ...quickFiles]
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`)
  })
})

describe('the integrations (transcript-hygiene/ai-sdk, transcript-hygiene/openai, transcript-hygiene/openclaw)', () => {
  const tscJs = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const hosts = ['ai', 'openai'].every((h) => existsSync(join(ROOT, 'node_modules', h, 'package.json')))

  for (const [entry, file] of [['ai-sdk', 'js/ai-sdk.js'], ['openai', 'js/openai.js'], ['openclaw', 'js/openclaw.js']]) {
    test(`${entry}: its .d.ts declares and documents every runtime export, with no \`any\`; the exports map names it`, () => {
      const dts = readFileSync(join(ROOT, 'integrations', `${entry}.d.ts`), 'utf8')
      const code = dts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')
      const declared = [...code.matchAll(/^export\s+declare\s+function\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1])
      // A `default` export (the OpenClaw plugin) is declared as a const, not a function.
      assert.deepEqual([...new Set(declared)].sort(), Object.keys(require(join(ROOT, file))).filter((k) => k !== 'default').sort())
      assert.doesNotMatch(code, /\bany\b/)
      for (const m of dts.matchAll(/^export\s+(?:declare\s+)?(?:function|const|interface|type)\s+([A-Za-z_$][\w$]*)/gm)) {
        assert.match(dts.slice(0, m.index), /\*\/\s*$/, `${entry}.d.ts: ${m[1]} has a JSDoc comment`)
      }
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
      assert.deepEqual(pkg.exports[`./${entry}`], {
        import: { types: `./integrations/${entry}.d.mts`, default: `./integrations/${entry}.mjs` },
        require: { types: `./integrations/${entry}.d.ts`, default: `./${file}` },
      })
      for (const host of ['ai', 'openai', 'openclaw']) {
        assert.equal(pkg.peerDependenciesMeta[host].optional, true, `${host} is an optional peer`)
        assert.equal(pkg.dependencies?.[host], undefined, `${host} is no runtime dependency`)
      }
    })
  }

  test('tsc --strict on the integration quick starts against the installed hosts', { timeout: 120_000 }, (t) => {
    if (!hosts || !existsSync(tscJs)) {
      t.skip('TypeScript, ai or openai is not installed in node_modules')
      return
    }
    // The hosts' own declarations need @types/node (which this package does not install):
    // --skipLibCheck leaves them unchecked; the quick starts are checked against them.
    const dir = join(ROOT, '__test__', 'fixtures', 'quickstart-hosts')
    const files = readdirSync(dir).map((f) => join(dir, f))
    const args = [tscJs, '--strict', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--pretty', 'false', ...files]
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`)
  })
})

describe('README quick starts', () => {
  test('every TypeScript block of the Quick start section is a checked fixture file, character for character', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1))
    const blocks = [...section.matchAll(/(?:<!-- checked: (\S+) -->\n)?```ts\n([\s\S]*?)```/g)]
    assert.equal(blocks.length, 5, 'agent, reply dispatcher, stream, gateway follow-up, migration')
    for (const [, file, code] of blocks) {
      assert.ok(file, `a ts block without a <!-- checked: … --> marker:\n${code}`)
      assert.equal(code, readFileSync(join(ROOT, file), 'utf8'), `README block differs from ${file}`)
      assert.ok(code.trimEnd().split('\n').length <= 12, `${file} is a short quick start`)
    }
  })

  test('every TypeScript block of the Drop-in integrations section is a checked fixture file, character for character', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const at = readme.indexOf('## Drop-in integrations')
    const section = readme.slice(at, readme.indexOf('\n## ', at + 1))
    const blocks = [...section.matchAll(/(?:<!-- checked: (\S+) -->\n)?```ts\n([\s\S]*?)```/g)]
    assert.equal(blocks.length, 3, 'AI SDK, OpenAI SDK, OpenClaw')
    for (const [, file, code] of blocks) {
      assert.ok(file, `a ts block without a <!-- checked: … --> marker:\n${code}`)
      assert.equal(code, readFileSync(join(ROOT, file), 'utf8'), `README block differs from ${file}`)
    }
  })
})
