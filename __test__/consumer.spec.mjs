// What a user gets from npm, end to end (fixtures/pack.mjs stages, packs and installs the root and
// the linux-x64-gnu package into a fresh project): a usage file is type-checked with `tsc --strict`
// under module nodenext as an ES module (.mts) and as CommonJS (.cts), and every export is called
// from an ES module and from a CommonJS script, with the same results as the source tree gives.
// Skipped, with the reason, on any other platform.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BINARY, ROOT, TARGET, packAndInstall, run } from './fixtures/pack.mjs'

const require = createRequire(import.meta.url)
const FIXTURES = join(ROOT, '__test__', 'fixtures')

function platformAbi() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `${process.platform}-${process.arch}`
  const header = process.report?.getReport()?.header
  return header && header.glibcVersionRuntime ? TARGET : 'linux-x64-musl'
}
const SKIP = platformAbi() === TARGET ? false : `the consumer test installs the ${TARGET} package; this is ${platformAbi()}`

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'))

describe('consumer: the packed packages installed into a fresh project', { skip: SKIP }, () => {
  let tmp
  let app
  const timings = {}
  const timed = (name, fn) => {
    const t0 = performance.now()
    const v = fn()
    timings[name] = Math.round(performance.now() - t0)
    return v
  }

  before(() => {
    assert.ok(existsSync(join(ROOT, BINARY)), `${BINARY} is built (npm install builds it)`)
    tmp = mkdtempSync(join(tmpdir(), 'th-consumer-'))
    const r = packAndInstall(tmp)
    app = r.app
    Object.assign(timings, r.timings)
  })

  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true })
    if (Object.keys(timings).length) console.log(`consumer test timings (ms): ${JSON.stringify(timings)}`)
  })

  test('the installed root lists every platform package as an optional dependency, ships no binary and runs no install script', () => {
    const dir = join(app, 'node_modules', 'transcript-hygiene')
    const pkg = readJson(join(dir, 'package.json'))
    const platforms = readdirSync(join(ROOT, 'npm')).map((d) => readJson(join(ROOT, 'npm', d, 'package.json')).name)
    assert.deepEqual(Object.keys(pkg.optionalDependencies ?? {}).sort(), platforms.sort())
    for (const v of Object.values(pkg.optionalDependencies)) assert.equal(v, pkg.version)
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts?.[s], undefined, `no ${s} script`)
    const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [e.name]))
    assert.deepEqual(walk(dir).filter((f) => f.endsWith('.node')), [])
    const platformDir = join(app, 'node_modules', `transcript-hygiene-${TARGET}`)
    assert.deepEqual(readdirSync(platformDir).sort(), [BINARY, 'README.md', 'package.json'].sort())
  })

  test('tsc --strict (module nodenext) type-checks a usage file as an ES module and as CommonJS, and the README quick starts', { timeout: 120_000 }, () => {
    const usage = readFileSync(join(FIXTURES, 'usage.ts'), 'utf8')
    assert.match(usage, /from '\.\.\/\.\.\/index\.js'/)
    const consumerUsage = usage.replaceAll("from '../../index.js'", "from 'transcript-hygiene'")
    writeFileSync(join(app, 'usage.mts'), consumerUsage)
    writeFileSync(join(app, 'usage.cts'), consumerUsage)
    // The README's quick starts, as a user would paste them.
    cpSync(join(FIXTURES, 'quickstart'), join(app, 'quickstart'), { recursive: true })
    const files = ['usage.mts', 'usage.cts', ...readdirSync(join(app, 'quickstart')).map((f) => join('quickstart', f))]
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const args = [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--pretty', 'false', '--listFiles', ...files]
    const out = timed('tsc', () => run(process.execPath, args, app, 'tsc'))
    // Each consumer read the declarations its condition names: import → index.d.mts, require → index.d.ts.
    const listed = out.split('\n').map((l) => l.trim().replaceAll('\\', '/'))
    for (const f of ['index.d.mts', 'index.d.ts']) assert.ok(listed.some((l) => l.endsWith(`node_modules/transcript-hygiene/${f}`)), `tsc read ${f}`)
  })

  const expected = () => require('./fixtures/every-export.cjs').callEvery(require('../index.js'))

  function runScript(name, source) {
    copyFileSync(join(FIXTURES, 'every-export.cjs'), join(app, 'every-export.cjs'))
    writeFileSync(join(app, name), source)
    return JSON.parse(timed(name, () => run(process.execPath, [name], app, `node ${name}`)))
  }

  function assertLoadedFromPlatformPackage(loaded) {
    assert.deepEqual(loaded, [join(app, 'node_modules', `transcript-hygiene-${TARGET}`, BINARY)], 'the binary came from the platform package')
  }

  test('every export works from an ES module, with named, namespace and default imports', () => {
    const r = runScript(
      'esm.mjs',
      `import * as ns from 'transcript-hygiene'
import th, { sanitizeSessionHistory, ResponseStreamCleaner } from 'transcript-hygiene'
import { createRequire } from 'node:module'
const { callEvery } = createRequire(import.meta.url)('./every-export.cjs')
const { default: _default, ...named } = ns
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.endsWith('.node'))
console.log(JSON.stringify({
  names: Object.keys(named).sort(),
  same: sanitizeSessionHistory === th.sanitizeSessionHistory && ResponseStreamCleaner === th.ResponseStreamCleaner && _default === th,
  results: callEvery(named),
  loaded,
}))
`,
    )
    assert.equal(r.same, true, 'named, namespace and default imports are the same functions')
    assert.deepEqual(r.names, Object.keys(require('../index.js')).sort())
    assertLoadedFromPlatformPackage(r.loaded)
    assert.deepEqual(r.results, expected())
  })

  test('the integration entries load with neither host installed (ai and openai are optional peers, not dependencies)', () => {
    for (const host of ['ai', 'openai']) assert.ok(!existsSync(join(app, 'node_modules', host)), `${host} is not installed by the package`)
    const r = runScript(
      'integrations.mjs',
      `import { createRequire } from 'node:module'
import * as aiSdk from 'transcript-hygiene/ai-sdk'
import * as openai from 'transcript-hygiene/openai'
const require = createRequire(import.meta.url)
console.log(JSON.stringify({
  esm: [...Object.keys(aiSdk), ...Object.keys(openai)].sort(),
  same: require('transcript-hygiene/ai-sdk').toolCallRecovery === aiSdk.toolCallRecovery && require('transcript-hygiene/openai').cleanChatCompletion === openai.cleanChatCompletion,
  middleware: aiSdk.toolCallRecovery().specificationVersion,
}))
`,
    )
    assert.deepEqual(r, { esm: ['cleanChatCompletion', 'cleanChatCompletionStream', 'toolCallRecovery', 'transcriptHygiene'], same: true, middleware: 'v3' })
  })

  test('the installed command runs: npx transcript-hygiene (version, a reply cleaned from stdin, exit code 2 on bad input)', () => {
    const bin = join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'transcript-hygiene.cmd' : 'transcript-hygiene')
    assert.ok(existsSync(bin), 'npm linked the bin')
    const version = spawnSync(bin, ['--version'], { cwd: app, encoding: 'utf8' })
    assert.equal(version.status, 0, version.stderr)
    assert.equal(version.stdout.trim(), readJson(join(ROOT, 'package.json')).version)
    const reply = 'Let me look.<tool_call>{"name": "read", "arguments": {"path": "a.txt"}}</tool_call>'
    const clean = spawnSync(bin, ['clean', '--json', '-'], { cwd: app, encoding: 'utf8', input: reply })
    assert.equal(clean.status, 0, clean.stderr)
    const out = JSON.parse(clean.stdout)
    assert.equal(out.content, 'Let me look.')
    assert.equal(out.toolCalls[0].function.name, 'read')
    const bad = spawnSync(bin, ['sanitize', join(app, 'missing.jsonl')], { cwd: app, encoding: 'utf8' })
    assert.equal(bad.status, 2)
    assert.equal(bad.stderr.trim().split('\n').length, 1, 'one line on stderr')
  })

  test('every export works from CommonJS', () => {
    const r = runScript(
      'cjs.cjs',
      `const th = require('transcript-hygiene')
const { callEvery } = require('./every-export.cjs')
console.log(JSON.stringify({
  names: Object.keys(th).sort(),
  results: callEvery(th),
  loaded: Object.keys(require.cache).filter((k) => k.endsWith('.node')),
}))
`,
    )
    assert.deepEqual(r.names, Object.keys(require('../index.js')).sort())
    assertLoadedFromPlatformPackage(r.loaded)
    assert.deepEqual(r.results, expected())
  })
})
