// What the README's quick starts take from the surrounding program (declared for tsc in
// fixtures/quickstart/globals.d.ts), given real values so the snippets run as a user pastes them.
// Everything they hand back is recorded in globalThis.record, which quickstart.mjs prints.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const record = (globalThis.record = { calls: [], ui: '', chat: [], replies: [], bodies: [], warnings: [] })
const g = globalThis

g.model = { provider: 'mistral', api: 'openai-completions', id: 'mistral-large-latest' }
g.storedMessages = [
  { role: 'user', content: '帮我读一下 a.txt', timestamp: 1 },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1|fc_1', name: 'read_file', arguments: { path: 'a.txt' } }], stopReason: 'toolUse', timestamp: 2 },
  { role: 'toolResult', toolCallId: 'call_1|fc_1', toolName: 'read_file', content: [{ type: 'text', text: '你好' }], isError: false, timestamp: 3 },
]
g.sessionManager = { getEntries: () => [], appendCustomEntry: () => {} }
g.sessionId = 'feishu-chat-42'
g.callModel = async (messages) => {
  record.sent = messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'toolCall').map((b) => b.id) : []))
  return { text: 'ok' }
}
g.tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }]
g.runTool = async (name, args) => ({ name, args })
g.chat = record.chat
g.reply = async (text) => record.replies.push(text)
g.modelReply = { text: '我来读取文件。<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>' }
const STREAMED = '<think>用户要读文件</think>好的，我来读取。<minimax:tool_call><invoke name="read_file"><parameter name="path">a.txt</parameter></invoke></minimax:tool_call>'
g.deltas = (async function* () {
  for (let i = 0; i < STREAMED.length; i += 3) yield STREAMED.slice(i, i + 3)
})()
g.ui = { append: (text) => (record.ui += text) }
g.dispatch = (call) => record.calls.push({ name: call.function.name, arguments: JSON.parse(call.function.arguments) })
g.assistant = { role: 'assistant', content: null, tool_calls: [{ id: 'ws1', type: 'function', function: { name: 'web_search', arguments: '{"query":"北京天气"}' } }] }
g.rawRequest = { model: 'glm-4.6', messages: [{ role: 'user', content: '北京天气' }], tools: [{ type: 'function', function: { name: 'web_search' } }], stream: true }
g.webSearch = async (args) => ({ hits: [JSON.parse(args).query] })
g.upstream = async (body) => {
  record.bodies.push(body)
  return { choices: [{ message: { role: 'assistant', content: '晴', tool_calls: [{ id: 'ws2', type: 'function', function: { name: 'web_search', arguments: '{}' } }] } }] }
}
g.clientBody = {
  model: 'mistral-large-latest',
  messages: [
    { role: 'user', content: '北京和上海的天气？' },
    { role: 'assistant', content: null, tool_calls: [
      { id: 'call_weather_beijing', type: 'function', function: { name: 'weather', arguments: '{"city":"北京"}' } },
      { id: 'call_weather_shanghai', type: 'function', function: { name: 'weather', arguments: '{"city":"上海"}' } },
    ] },
    { role: 'tool', tool_call_id: 'call_weather_beijing', content: '晴，25°C' },
    { role: 'user', content: '谢谢' },
  ],
}
// OpenClaw's plugin API, as far as the plugin uses it: the hooks it registers are kept (quickstart.mjs fires one).
g.openclawHooks = {}
g.api = {
  pluginConfig: {},
  on: (name, handler) => {
    ;(record.hooks ??= []).push(name)
    g.openclawHooks[name] = handler
  },
}
g.taskDir = mkdtempSync(join(tmpdir(), 'th-quickstart-'))
writeFileSync(
  join(g.taskDir, 'api_conversation_history.json'),
  JSON.stringify([
    { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
    { role: 'assistant', content: [{ type: 'text', text: '<read_file>\n<path>a.txt</path>\n</read_file>' }] },
    { role: 'user', content: [{ type: 'text', text: '[read_file for \'a.txt\'] Result:\nhello' }] },
  ]),
)
const warn = console.warn
console.warn = (...args) => record.warnings.push(args.join(' '))
g.restoreWarn = () => (console.warn = warn)
