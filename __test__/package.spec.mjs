// The package as npm ships it, checked from the source tree (consumer.spec.mjs installs the packed
// tarballs for real): `import` and `require` give the same functions, the per-platform packages are
// what napi-rs writes for the configured targets, the loader asks for those package names, and the
// root tarball holds every file the entry points load and no native binary.
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
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'))

describe('ESM and CommonJS entries', () => {
  test('index.mjs exports exactly the names of index.js, as the same values, and index.js as default', async () => {
    const cjs = require('../index.js')
    const esm = await import('../index.mjs')
    const named = Object.keys(esm).filter((k) => k !== 'default')
    assert.deepEqual(named.sort(), Object.keys(cjs).sort())
    for (const k of named) assert.equal(esm[k], cjs[k], k)
    assert.equal(esm.default, cjs)
  })

  test('the package name resolves through the exports map: import → index.mjs, require → index.js, one addon', async () => {
    // Self-reference: inside the package its own name resolves through `exports`, as it does for a user.
    assert.equal(require.resolve('transcript-hygiene'), join(ROOT, 'index.js'))
    assert.equal(import.meta.resolve('transcript-hygiene'), new URL('../index.mjs', import.meta.url).href)
    const viaImport = await import('transcript-hygiene')
    const viaRequire = require('transcript-hygiene')
    assert.equal(viaImport.sanitizeSessionHistory, viaRequire.sanitizeSessionHistory)
    assert.equal(viaImport.ResponseStreamCleaner, viaRequire.ResponseStreamCleaner)
  })

  test('every file the exports map names exists and is shipped', () => {
    const targets = []
    const walk = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(walk))
    walk(PKG.exports)
    for (const t of [...targets, PKG.main, PKG.types]) {
      assert.ok(existsSync(join(ROOT, t)), `${t} exists`)
      const file = t.replace(/^\.\//, '')
      const shipped = PKG.files.includes(file) || PKG.files.some((d) => d.endsWith('/') && file.startsWith(d))
      assert.ok(file === 'package.json' || shipped, `${file} is in package.json files (or a folder listed there)`)
    }
  })
})

describe('per-platform packages', () => {
  const dirs = readdirSync(join(ROOT, 'npm')).sort()

  test('npm/ is exactly what `napi create-npm-dirs` writes for package.json', { timeout: 60_000 }, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'th-npm-dirs-'))
    try {
      writeFileSync(join(tmp, 'package.json'), JSON.stringify(PKG, null, 2))
      const napi = join(ROOT, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
      const r = spawnSync(process.execPath, [napi, 'create-npm-dirs'], { cwd: tmp, encoding: 'utf8' })
      assert.equal(r.status, 0, r.stdout + r.stderr)
      const made = readdirSync(join(tmp, 'npm')).sort()
      assert.deepEqual(dirs, made, 'one directory per napi target, no other')
      for (const d of made) {
        for (const f of readdirSync(join(tmp, 'npm', d))) {
          const want = readFileSync(join(tmp, 'npm', d, f), 'utf8').replaceAll('\r\n', '\n')
          const got = readFileSync(join(ROOT, 'npm', d, f), 'utf8').replaceAll('\r\n', '\n')
          if (f === 'package.json') assert.deepEqual(JSON.parse(got), JSON.parse(want), `npm/${d}/package.json`)
          else assert.equal(got, want, `npm/${d}/${f}`)
        }
        assert.deepEqual(readdirSync(join(ROOT, 'npm', d)).sort(), readdirSync(join(tmp, 'npm', d)).sort(), `npm/${d} holds only generated files (no build artifacts)`)
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  test('the issue\'s seven targets, each with os / cpu / libc / main / files', () => {
    assert.deepEqual(dirs, ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu', 'linux-x64-musl', 'win32-x64-msvc'])
    for (const d of dirs) {
      const p = readJson(join(ROOT, 'npm', d, 'package.json'))
      const [os, cpu, abi] = d.split('-')
      assert.equal(p.name, `transcript-hygiene-${d}`)
      assert.equal(p.version, PKG.version, `${d} version follows the root`)
      assert.deepEqual(p.os, [os])
      assert.deepEqual(p.cpu, [cpu])
      if (os === 'linux') assert.deepEqual(p.libc, [abi === 'gnu' ? 'glibc' : 'musl'])
      else assert.equal(p.libc, undefined)
      assert.equal(p.main, `transcript-hygiene.${d}.node`)
      assert.deepEqual(p.files, [p.main])
    }
  })

  test('the generated loader (binding.js) requires each of these package names', () => {
    const loader = readFileSync(join(ROOT, 'binding.js'), 'utf8')
    for (const d of dirs) {
      const name = readJson(join(ROOT, 'npm', d, 'package.json')).name
      assert.ok(loader.includes(`require('${name}')`), `binding.js requires ${name}`)
      assert.ok(loader.includes(`./transcript-hygiene.${d}.node`), `binding.js tries the local transcript-hygiene.${d}.node`)
    }
  })
})

describe('the release workflow', () => {
  const yml = readFileSync(join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8')
  const section = (from, to) => yml.slice(yml.indexOf(`\n  ${from}:\n`), to ? yml.indexOf(`\n  ${to}:\n`) : undefined)

  test('builds each napi target once, tests each on its own OS, and publishes only on a v* tag', () => {
    const built = [...section('build', 'rust-tests').matchAll(/^\s+target: (\S+)$/gm)].map((m) => m[1])
    assert.deepEqual(built.sort(), [...PKG.napi.targets].sort())
    const tests = section('test-macos-windows', 'publish')
    for (const t of PKG.napi.targets) assert.ok(tests.includes(t), `${t} is tested`)
    assert.match(yml, /tags:\n\s+- 'v\*'/)
    assert.match(section('publish'), /if: startsWith\(github\.ref, 'refs\/tags\/v'\)/)
    assert.match(section('publish'), /napi prepublish -t npm/)
  })
})

describe('the root tarball', () => {
  test('`npm pack` ships the entries, the codec and the loader, and no native binary', { timeout: 60_000 }, () => {
    const r = spawnSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', shell: process.platform === 'win32' })
    assert.equal(r.status, 0, r.stderr)
    const files = new Set(JSON.parse(r.stdout)[0].files.map((f) => f.path))
    for (const f of ['package.json', 'README.md', 'index.js', 'index.mjs', 'index.d.ts', 'index.d.mts', 'binding.js']) assert.ok(files.has(f), `${f} is packed`)
    // Every module the CommonJS entry loads, found from require.cache after loading it.
    require('../index.js')
    for (const k of Object.keys(require.cache)) {
      if (!k.startsWith(ROOT) || k.includes('node_modules') || k.includes('__test__')) continue
      const rel = k.slice(ROOT.length).replaceAll('\\', '/')
      if (rel.endsWith('.node')) continue
      assert.ok(files.has(rel), `${rel} (loaded by index.js) is packed`)
    }
    const unwanted = [...files].filter((f) => f.endsWith('.node') || /^(src|target|npm|__test__|benchmark|examples)\//.test(f))
    assert.deepEqual(unwanted, [], 'the binary comes from the platform package; sources and tests stay out')
  })
})
