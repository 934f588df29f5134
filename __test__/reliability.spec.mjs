// Reliability (issue #6): the addon loads and works in worker threads, four at once, with the main
// thread's results; a million sanitizeSessionHistory calls leave the resident set flat; bad calls
// of every export, in a loop, never take the process down. The last two run in child processes,
// so a leak or a crash is measured or seen there and reported here. The three run concurrently.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { makeTranscript } from './fixtures/transcripts.mjs'
import { nodeChild as node } from './fixtures/helpers.mjs'

const require = createRequire(import.meta.url)
const th = require('../index.js')
const { callEvery } = require('./fixtures/every-export.cjs')

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** How many times slower than its slowest pace so far a child's next stretch of calls may run. */
const PACE_FACTOR = 20
/** Until its first progress line (node started, the addon loaded, 1,000 calls made). */
const START_MS = 60_000

/**
 * Runs a node child that writes `progress N NEXT` lines (N calls made, the next line due after NEXT)
 * as it goes, with a deadline that follows the work rather than a clock: each stretch between two
 * lines may take at most PACE_FACTOR times its calls at the slowest pace (µs a call) of the
 * stretches before it; the first stretch goes at the pace of the child's start and first 1,000
 * calls (node, the addon, cold code: slower than any later pace). A loaded machine slows every
 * stretch alike and moves the deadline with it; a hang, or calls that slow down as they add up,
 * miss it: the child is killed and the result says so.
 */
function paced(args) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let last = { calls: 0, at: performance.now() }
    let start = 0
    let slowest = 0
    let limit = 'no stretch missed its deadline'
    let timer
    const arm = (ms) => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        limit = `killed: no progress within ${Math.round(ms)} ms after ${last.calls} calls`
        c.kill('SIGKILL')
      }, ms)
    }
    arm(START_MS)
    c.stdout.on('data', (d) => {
      const before = stdout.length
      stdout += d
      for (const line of stdout.slice(stdout.lastIndexOf('\n', before - 1) + 1).split('\n').slice(0, -1)) {
        const m = /^progress (\d+) (\d+)$/.exec(line)
        if (!m) continue
        const now = performance.now()
        const calls = Number(m[1])
        const pace = ((now - last.at) * 1000) / (calls - last.calls)
        if (last.calls === 0) start = pace
        else slowest = Math.max(slowest, pace)
        last = { calls, at: now }
        // After the last line, the result is still to come: a stretch of 1,000 calls' time.
        arm((PACE_FACTOR * (slowest || start) * Math.max(Number(m[2]) - calls, 1000)) / 1000)
      }
    })
    c.stderr.on('data', (d) => (stderr += d))
    c.on('error', reject)
    c.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr: `${stderr}${signal ? `\n${limit}` : ''}`, start, slowest, limit })
    })
  })
}

/** Starts a worker and resolves with its one message, or rejects with its error or a bad exit. */
function runWorker(workerData) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fixture('reliability-worker.cjs'), { workerData })
    let message
    w.once('message', (m) => (message = m))
    w.once('error', reject)
    w.once('exit', (code) => (code === 0 && message ? resolve(message) : reject(new Error(`worker exited with ${code} and ${message ? 'a' : 'no'} result`))))
  })
}

const POLICIES = [
  { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
]

describe('reliability', { concurrency: true }, () => {
  test('4 worker threads at once load the addon and give the main thread\'s results, for every export', { timeout: 120_000 }, async () => {
    const transcript = makeTranscript(1000)
    const expected = {
      every: callEvery(th),
      history: POLICIES.map((p) => th.sanitizeSessionHistory({ ...p, messages: transcript, report: true })),
    }
    const barrier = new SharedArrayBuffer(4)
    const results = await Promise.all([0, 1, 2, 3].map(() => runWorker({ barrier, workers: 4, rounds: 5, transcript, params: POLICIES })))
    assert.equal(results.length, 4)
    // Structured cloning keeps plain data exactly; compare through JSON so both sides are plain.
    const plain = (v) => JSON.parse(JSON.stringify(v))
    for (const r of results) assert.deepEqual(plain(r), plain(expected))
    // The main thread still works after the workers' environments were torn down.
    assert.deepEqual(plain(callEvery(th)), plain(expected.every))
  })

  test('a worker terminated in the middle of calls does not take the process down', { timeout: 60_000 }, async () => {
    const w = new Worker(
      `const th = require(${JSON.stringify(fileURLToPath(new URL('../index.js', import.meta.url)))})
       const { parentPort } = require('node:worker_threads')
       const m = [{ role: 'assistant', content: [{ type: 'toolCall', id: 'a|b', name: 'read', arguments: {} }], stopReason: 'toolUse' }]
       parentPort.postMessage('running')
       for (;;) { th.sanitizeSessionHistory({ provider: 'mistral', modelApi: 'openai-completions', messages: m }); new th.ResponseStreamCleaner().push('<tool_call>') }`,
      { eval: true },
    )
    await new Promise((resolve, reject) => {
      w.once('message', resolve)
      w.once('error', reject)
    })
    assert.equal(await w.terminate(), 1)
    assert.equal(th.cleanResponse('a <tool_call>{"name":"f","arguments":{}}</tool_call>').toolCalls.length, 1)
  })

  test('1,000,000 sanitizeSessionHistory calls on a small transcript leave RSS flat (within 10%)', { timeout: Infinity }, async (t) => {
    const r = await paced(['--expose-gc', fixture('rss-child.mjs'), '1000000', '200000'])
    assert.equal(r.code, 0, r.stderr)
    t.diagnostic(`start ${r.start.toFixed(1)} µs a call, slowest stretch after it ${r.slowest.toFixed(1)}; ${r.limit} (deadline ${PACE_FACTOR}× the slowest pace before each stretch)`)
    const m = JSON.parse(r.stdout.trim().split('\n').at(-1))
    t.diagnostic(`RSS after 200,000 calls ${m.atWarmup} MiB, after 1,000,000 ${m.atEnd} MiB (samples ${m.samples.join(', ')}); ${m.ms} ms`)
    assert.equal(m.changed, true, 'the transcript is one the rules change, so every call builds a new result')
    assert.equal(m.sameOutput, true, 'the last call gives what the first gave')
    assert.ok(m.atEnd <= m.atWarmup * 1.1, `RSS grew from ${m.atWarmup} MiB to ${m.atEnd} MiB`)
  })

  test('bad calls of every export, in a loop, throw Errors and never take the process down; hostile structures mutate, pollute and vary nothing', { timeout: 300_000 }, async (t) => {
    const r = await node([fixture('bad-calls-child.mjs'), '3'])
    assert.equal(r.signal, null, `the child died of ${r.signal}:\n${r.stderr.slice(-2000)}`)
    assert.equal(r.code, 0, r.stderr.slice(-2000))
    const m = JSON.parse(r.stdout)
    t.diagnostic(`${m.calls} bad calls: ${JSON.stringify(m.outcomes)}`)
    assert.ok(m.calls > 10_000)
    assert.deepEqual(m.notErrors, [], 'every throw is an Error')
    assert.ok(m.outcomes.TypeError > 1000, 'wrong types are TypeErrors')
    assert.equal(m.sameResults, true, 'after the bad calls, every export gives the results it gave before')
    t.diagnostic(`hostile structures: ${m.hostile.calls} calls, ${JSON.stringify(m.hostile.endings)}`)
    assert.ok(m.hostile.calls > 300)
    assert.deepEqual(m.hostile.mutated, [], 'no input is mutated')
    assert.deepEqual(m.hostile.nondeterministic, [], 'the same input ends the same way twice')
    assert.deepEqual(m.hostile.polluted, [], 'no prototype gains a property')
  })
})
