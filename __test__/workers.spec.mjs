// Worker threads in every order a host uses them, the main thread never loading the package unless
// the scenario says so: each scenario of fixtures/workers/scenario.cjs, a piscina pool recycling
// its workers, and a vitest run with its thread pool. Each runs in a child process of its own, so a
// crash of the host is that child dying with a signal, reported here with what it printed.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { nodeChild as child } from './fixtures/helpers.mjs'

const path = (rel) => fileURLToPath(new URL(rel, import.meta.url))

function survived(r, what) {
  assert.equal(r.signal, null, `${what}: the host process died of ${r.signal}\n${r.stderr.slice(-3000)}`)
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`)
}

const SCENARIOS = {
  sequential: '24 workers one after another load the package, call it and exit',
  rounds: '4 workers at once, 6 rounds',
  staggered: '16 workers started while others exit, in no fixed order',
  terminate: 'a worker terminated in the middle of calls, then a new one, 5 times',
  'main-after': 'the main thread loads the package after workers came and went',
  'every-export': 'every export in 5 workers, answers equal to the main thread\'s',
}

describe('worker threads', { concurrency: 2 }, () => {
  for (const [name, what] of Object.entries(SCENARIOS)) {
    test(`${what} (the main thread never loads it first)`, { timeout: 300_000 }, async () => {
      const r = await child([path('./fixtures/workers/scenario.cjs'), name])
      survived(r, name)
      assert.equal(JSON.parse(r.stdout).scenario, name)
    })
  }

  test('a piscina pool with a 1 ms idle timeout recycles its workers while tasks keep coming', { timeout: 300_000 }, async (t) => {
    const r = await child([path('./fixtures/workers/piscina-pool.mjs')])
    survived(r, 'piscina')
    const { tasks, threads } = JSON.parse(r.stdout)
    t.diagnostic(`${tasks} tasks ran on ${threads} worker threads`)
    assert.equal(tasks, 42)
    assert.ok(threads > 4, `workers were recycled (${threads} threads for a pool of at most 4)`)
  })

  test('vitest with pool: threads runs six spec files that load the package', { timeout: 300_000 }, async () => {
    const r = await child([path('../node_modules/vitest/vitest.mjs'), 'run', '--config', path('./vitest/vitest.config.mjs')], { NO_COLOR: '1', CI: 'true' })
    survived(r, 'vitest')
    assert.match(r.stdout, /Test Files\s+6 passed \(6\)/)
    assert.match(r.stdout, /Tests\s+12 passed \(12\)/)
  })
})
