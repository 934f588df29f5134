// Timing in CPU time, for a machine shared with other work. Wall time counts the moments another
// process had the core; the process's CPU time (`process.cpuUsage`: user + system, every thread
// of this process, so garbage collection and V8's helper threads are included) counts only what
// this process spent. Each figure is the best (least) per-call time over several batches of
// about `batchMs` of CPU each: the batch least disturbed by cache and frequency effects of the
// neighbours, which is what the code costs.

/** CPU µs since `c0` (a `process.cpuUsage()` value). */
export function cpuSince(c0) {
  const c = process.cpuUsage(c0)
  return c.user + c.system
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
  const c0 = process.cpuUsage()
  fn()
  const per = batchSize(cpuSince(c0), batchMs)
  let best = Infinity
  for (let b = 0; b < batches; b++) {
    const c = process.cpuUsage()
    for (let i = 0; i < per; i++) fn()
    best = Math.min(best, cpuSince(c) / per)
  }
  return best
}

/** `cpuTime` for a function returning a promise (OpenClaw's pass is async). */
export async function cpuTimeAsync(fn, { batches = 7, batchMs = 40, warm = 3 } = {}) {
  for (let i = 0; i < warm; i++) await fn()
  const c0 = process.cpuUsage()
  await fn()
  const per = batchSize(cpuSince(c0), batchMs)
  let best = Infinity
  for (let b = 0; b < batches; b++) {
    const c = process.cpuUsage()
    for (let i = 0; i < per; i++) await fn()
    best = Math.min(best, cpuSince(c) / per)
  }
  return best
}

// Between two turns an agent waits for the model and does other work: what it touched last is no
// longer in the CPU caches. `flushCaches()` reads a buffer larger than the caches (32 MiB), so
// the next call runs "cold"; call it outside the timed part.
let junk = null

export function flushCaches() {
  junk ??= new Float64Array(4 << 20)
  let s = 0
  for (let i = 0; i < junk.length; i += 8) s += junk[i]
  return s
}
