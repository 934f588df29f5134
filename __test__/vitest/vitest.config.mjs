// vitest with its thread pool: each test file below runs in a worker thread of its own (isolate),
// so the package is loaded by one worker after another, as a project's own test suite would.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['*.test.mjs'],
    pool: 'threads',
    isolate: true,
    maxWorkers: 2,
    fileParallelism: true,
  },
})
