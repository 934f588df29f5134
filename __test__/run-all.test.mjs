// Node 20's `node --test <dir>` only picks up files named like *.test.mjs (or test-*.mjs, or
// anything under a `test/` folder), so `node --test __test__/` would find none of the
// *.spec.mjs files and pass with zero tests. This file loads every spec so that command runs
// the whole suite. With an explicit glob (`node --test __test__/*.spec.mjs`) it is not needed.
import { readdirSync } from 'node:fs'

const dir = new URL('./', import.meta.url)
for (const name of readdirSync(dir).filter((f) => f.endsWith('.spec.mjs')).sort()) {
  await import(new URL(name, dir))
}
