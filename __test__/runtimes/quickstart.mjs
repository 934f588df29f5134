// Runs one README quick start (a copy of fixtures/quickstart/NAME.mts as NAME.mjs beside this file)
// with prelude.mjs's values and prints what it did, as JSON:  <runtime> quickstart.mjs NAME
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import './prelude.mjs'

const name = process.argv[process.argv.length - 1]
await import(`./quickstart/${name}.mjs`)
globalThis.restoreWarn()
const r = globalThis.record
// What a channel would be sent for a MiniMax reply, as OpenClaw fires message_sending.
if (name === 'openclaw') r.sent = await globalThis.openclawHooks.message_sending({ to: 'ou_42', content: '好的，我来查。<minimax:tool_call><invoke name="exec"><parameter name="command">date</parameter></invoke></minimax:tool_call>' }, { channelId: 'feishu' })
if (name === 'migration') r.migrated = JSON.parse(readFileSync(join(globalThis.taskDir, 'api_conversation_history.json'), 'utf8'))
console.log(JSON.stringify(r))
