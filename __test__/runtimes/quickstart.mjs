// Runs one README quick start (a copy of fixtures/quickstart/NAME.mts as NAME.mjs beside this file)
// with prelude.mjs's values and prints what it did, as JSON:  <runtime> quickstart.mjs NAME
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import './prelude.mjs'

const name = process.argv[process.argv.length - 1]
await import(`./quickstart/${name}.mjs`)
globalThis.restoreWarn()
const r = globalThis.record
if (name === 'migration') r.migrated = JSON.parse(readFileSync(join(globalThis.taskDir, 'api_conversation_history.json'), 'utf8'))
console.log(JSON.stringify(r))
