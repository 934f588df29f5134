// What a user gets from npm, end to end, on the one platform this machine builds (linux-x64-gnu):
// the root package is staged as the release workflow stages it (`napi prepublish` writes the
// optionalDependencies, the build-only `prepare` script is removed), `npm pack`ed with the
// linux-x64-gnu package (the freshly built binary copied into a temporary copy of npm/linux-x64-gnu),
// both tarballs are installed offline into a fresh project, a usage file is type-checked with
// `tsc --strict` under module nodenext as an ES module (.mts) and as CommonJS (.cts), and every
// export is called from an ES module and from a CommonJS script, with the same results as the
// source tree gives. Skipped, with the reason, on any other platform.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('../', import.meta.url))
const FIXTURES = join(ROOT, '__test__', 'fixtures')
const TARGET = 'linux-x64-gnu'
const BINARY = `transcript-hygiene.${TARGET}.node`

function platformAbi() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `${process.platform}-${process.arch}`
  const header = process.report?.getReport()?.header
  return header && header.glibcVersionRuntime ? TARGET : 'linux-x64-musl'
}
const SKIP = platformAbi() === TARGET ? false : `the consumer test installs the ${TARGET} package; this is ${platformAbi()}`

function run(cmd, args, cwd, what) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } })
  assert.equal(r.status, 0, `${what} failed (${cmd} ${args.join(' ')}):\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}
const npm = (args, cwd, what) => run('npm', args, cwd, what)
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
    const stage = join(tmp, 'stage')
    const tarballs = join(tmp, 'tarballs')
    app = join(tmp, 'app')
    for (const d of [stage, tarballs, app]) mkdirSync(d)

    timed('stage', () => {
      // The root's files exactly as `npm pack` lists them, and the per-platform package folders.
      const packed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT, 'npm pack --dry-run'))[0].files
      for (const { path } of packed) {
        mkdirSync(dirname(join(stage, path)), { recursive: true })
        copyFileSync(join(ROOT, path), join(stage, path))
      }
      cpSync(join(ROOT, 'npm'), join(stage, 'npm'), { recursive: true })
      // `napi prepublish` checks every platform package holds its binary before it writes the root's
      // optionalDependencies: the real one for this target, placeholders (never packed) for the others.
      for (const d of readdirSync(join(stage, 'npm'))) {
        const file = join(stage, 'npm', d, `transcript-hygiene.${d}.node`)
        if (d === TARGET) copyFileSync(join(ROOT, BINARY), file)
        else writeFileSync(file, 'placeholder')
      }
      // As the release workflow does, minus publishing and the GitHub release.
      const napi = join(ROOT, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
      run(process.execPath, [napi, 'prepublish', '-t', 'npm', '--skip-optional-publish', '--no-gh-release'], stage, 'napi prepublish')
      npm(['pkg', 'delete', 'scripts.prepare'], stage, 'npm pkg delete scripts.prepare')
    })

    timed('pack', () => {
      npm(['pack', '--ignore-scripts', '--pack-destination', tarballs], stage, 'npm pack (root)')
      npm(['pack', '--ignore-scripts', '--pack-destination', tarballs], join(stage, 'npm', TARGET), `npm pack (${TARGET})`)
    })

    timed('install', () => {
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2))
      const tgz = readdirSync(tarballs).map((f) => join(tarballs, f))
      npm(['install', '--offline', '--no-audit', '--no-fund', ...tgz], app, 'npm install of the tarballs')
    })
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
