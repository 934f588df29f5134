// The OpenClaw release switch: `openclawVersion` in a function's options, and the process-wide
// default set by setOpenClawVersion (shared by worker threads). Checked on stripModelSpecialTokens,
// whose rule differs between the releases (`好的<|im_end|>，`: 2026.3.23 `好的 ，`, 2026.9.6 `好的，`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const TEXT = '好的<|im_end|>，明白'

const [OLD, NEW] = ['好的 ，明白', '好的，明白']

test('the option picks the release, and the default is 2026.9.6, the current release', () => {
  assert.equal(th.getOpenClawVersion(), '2026.9.6')
  assert.equal(th.stripModelSpecialTokens(TEXT), NEW)
  assert.equal(th.stripModelSpecialTokens(TEXT, { openclawVersion: '2026.3.23' }), OLD)
  assert.equal(th.stripModelSpecialTokens(TEXT, { openclawVersion: '2026.9.6' }), NEW)
})

test('setOpenClawVersion changes what calls without the option do; an explicit option still wins', () => {
  try {
    th.setOpenClawVersion('2026.3.23')
    assert.equal(th.getOpenClawVersion(), '2026.3.23')
    assert.equal(th.stripModelSpecialTokens(TEXT), OLD)
    assert.equal(th.stripModelSpecialTokens(TEXT, { openclawVersion: '2026.9.6' }), NEW)
  } finally {
    th.setOpenClawVersion('2026.9.6')
  }
  assert.equal(th.stripModelSpecialTokens(TEXT), NEW)
})

test('the default is process-wide: a worker thread sees it', async () => {
  th.setOpenClawVersion('2026.3.23')
  try {
    const src = `const th = require(${JSON.stringify(require.resolve('../index.js'))}); require('node:worker_threads').parentPort.postMessage([th.getOpenClawVersion(), th.stripModelSpecialTokens(${JSON.stringify(TEXT)})])`
    const w = new Worker(src, { eval: true })
    const [version, text] = await new Promise((resolve, reject) => {
      w.once('message', resolve)
      w.once('error', reject)
    })
    await w.terminate()
    assert.deepEqual([version, text], ['2026.3.23', OLD])
  } finally {
    th.setOpenClawVersion('2026.9.6')
  }
})

test('a bad version is a TypeError naming it', () => {
  assert.throws(() => th.setOpenClawVersion('2026.9'), { name: 'TypeError', message: /^version: expected '2026\.3\.23' or '2026\.9\.6', got "2026\.9"/ })
  assert.throws(() => th.setOpenClawVersion(), { name: 'TypeError', message: /^version: expected/ })
  assert.throws(() => th.stripModelSpecialTokens('x', { openclawVersion: 2026 }), { name: 'TypeError', message: /^options\.openclawVersion: expected '2026\.3\.23' or '2026\.9\.6', got number/ })
  assert.equal(th.getOpenClawVersion(), '2026.9.6')
})
