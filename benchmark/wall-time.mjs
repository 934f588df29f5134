// Wall-clock timing for the image benchmarks, whose calls are long (milliseconds to seconds) and
// partly asynchronous (sharp, OpenClaw 2026.9.6's image pass): the median of whole runs.

/** Milliseconds since `t0` (a `process.hrtime.bigint()`). */
export const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6

/** The median of `xs` (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** The wall ms of `n` runs of `fn` (awaited), in order. */
export async function timeRuns(n, fn) {
  const out = []
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint()
    await fn()
    out.push(ms(t0))
  }
  return out
}
