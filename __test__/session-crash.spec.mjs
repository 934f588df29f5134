// repairSessionFile under crashes and concurrent writers: a repair killed with SIGKILL in every
// phase of its writes leaves the original or the repaired bytes, with a complete backup whenever
// the file changed (fixtures/crash-repair.mjs: the kill follows the child's progress, run in
// slices and stopped between them, not a clock; its 200 MiB run is documented there); lines
// another process appends during a repair are all in the repaired file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { th } from './fixtures/helpers.mjs'
import { PHASES, crashRuns, makeSession } from './fixtures/crash-repair.mjs'

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

const LINUX = fs.existsSync('/proc/self/stat') || 'the kill reads the stopped child\'s phase from /proc (Linux)'

test('a repair killed with SIGKILL 50 times, in every phase of its writes, leaves the original or the repaired bytes, and a backup when it changed', { timeout: 120_000, skip: LINUX !== true && LINUX }, async (t) => {
  const r = await crashRuns({ mib: 1, runs: 50 })
  t.diagnostic(JSON.stringify(r))
  assert.deepEqual(r.violations, [])
  assert.equal(r.outcomes.original + r.outcomes.repaired, 50)
  // Run i aims at phase i mod 4 and is killed at the first stop that reached it: the child runs
  // only in its slices, so it cannot end before the runs aimed ahead of the rename are killed.
  const aimedBeforeRename = Array.from({ length: 50 }, (_, i) => i % PHASES.length).filter((p) => p < PHASES.indexOf('renamed')).length
  assert.ok(r.outcomes.killed >= aimedBeforeRename, `only ${r.outcomes.killed} of the 50 runs were killed before they ended`)
  assert.ok(r.killedIn['nothing written'] >= 1, 'a kill before any write')
  assert.ok(r.killedIn['temporary file written'] + r.killedIn.renamed >= 1, 'a kill after the backup, with the repaired bytes on disk')
})

function startAppender(file, stop) {
  const child = spawn(process.execPath, [fixture('appender-child.mjs'), file, stop], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const started = new Promise((resolve) => child.stdout.on('data', (d) => (out += d) && out.includes('started\n') && resolve()))
  const done = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(Number(out.trim().split('\n').at(-1))) : reject(new Error(`appender exited with ${code}`))))
  })
  return { started, done }
}

test('every line another process appends during a repair is in the repaired file, once', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'th-append-'))
  try {
    for (let round = 0; round < 3; round++) {
      const file = path.join(dir, `session-${round}.jsonl`)
      const stop = path.join(dir, `stop-${round}`)
      const original = makeSession(8)
      fs.writeFileSync(file, original)
      const appender = startAppender(file, stop)
      await appender.started
      const r = th.repairSessionFile(file)
      assert.equal(r.repaired, true, JSON.stringify(r))
      await new Promise((resolve) => setTimeout(resolve, 30))
      fs.writeFileSync(stop, '')
      const appended = await appender.done
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')
      const ids = lines.map((l) => JSON.parse(l).id)
      const seen = ids.filter((id) => id.startsWith('appended-'))
      assert.ok(appended > 10, `the appender wrote only ${appended} lines`)
      assert.equal(seen.length, appended, `round ${round}: ${appended} lines appended, ${seen.length} in the file`)
      assert.equal(new Set(seen).size, appended)
      // The session's own valid lines are all there, in order, before any line appended during the read.
      const kept = original.toString('utf8').split('\n').filter((l) => l !== '' && !l.endsWith('"con'))
      assert.deepEqual(ids.filter((id) => !id.startsWith('appended-')), kept.map((l) => JSON.parse(l).id))
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
