// Timing in CPU time, for a machine shared with other work. Wall time counts the moments another
// process had the core; the process's CPU time (`process.cpuUsage`: user + system, every thread of
// this process, so garbage collection and V8's helper threads are included) counts only what this
// process spent. V8's helper threads go on collecting the garbage of whatever ran *before* a
// measurement (the 10,000-message passes made to set up a batch of 4-message turns added up to
// ~300 µs to each turn), so each batch starts after a full garbage collection; the batch pays for
// its own garbage. Each figure is the best (least) per-call time over several batches of about
// `batchMs` of CPU each: the batch least disturbed by the neighbours' use of the shared caches.
import v8 from 'node:v8'
import vm from 'node:vm'

/** CPU µs of this process so far. */
export function cpuNow() {
  const c = process.cpuUsage()
  return c.user + c.system
}

/** CPU µs since `c0` (a `cpuNow()` value). */
export function cpuSince(c0) {
  return cpuNow() - c0
}

// A full collection between batches (V8's `gc`, reached without the command-line flag).
v8.setFlagsFromString('--expose-gc')
const collect = vm.runInNewContext('gc')

/** Collects the garbage left so far, so that a measurement starts clean. */
export function settle() {
  collect()
}

/** How many calls of `fn` make a batch of about `batchMs` ms of CPU (after a warm-up). */
function batchSize(once, batchMs) {
  return Math.max(1, Math.round((batchMs * 1000) / Math.max(once, 1)))
}

/**
 * Best CPU µs per call of `fn` over `batches` batches of about `batchMs` ms each (at least one
 * call a batch), after `warm` calls.
 */
export function cpuTime(fn, { batches = 7, batchMs = 40, warm = 5 } = {}) {
  for (let i = 0; i < warm; i++) fn()
  const c0 = cpuNow()
  fn()
  const per = batchSize(cpuSince(c0), batchMs)
  let best = Infinity
  for (let b = 0; b < batches; b++) {
    settle()
    const c = cpuNow()
    for (let i = 0; i < per; i++) fn()
    best = Math.min(best, cpuSince(c) / per)
  }
  return best
}

/** `cpuTime` for a function returning a promise (OpenClaw's pass is async). */
export async function cpuTimeAsync(fn, { batches = 7, batchMs = 40, warm = 3 } = {}) {
  for (let i = 0; i < warm; i++) await fn()
  const c0 = cpuNow()
  await fn()
  const per = batchSize(cpuSince(c0), batchMs)
  let best = Infinity
  for (let b = 0; b < batches; b++) {
    settle()
    const c = cpuNow()
    for (let i = 0; i < per; i++) await fn()
    best = Math.min(best, cpuSince(c) / per)
  }
  return best
}
