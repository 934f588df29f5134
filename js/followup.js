'use strict'
// Server-side tool follow-ups: read the ids and names the rules need, make one native call, apply
// the plan. The messages, the assistant and the results stay JS objects (a tool output can be
// megabytes): the follow-up holds the very same objects, plus the new result messages.

const native = require('../binding.js')
const { describe, isObject, optStr: str, fail, toJson } = require('./args.js')

const PROTOCOLS = ['chat', 'responses', 'anthropic']

function expect(ok, path, what, v) {
  if (!ok) fail(path, what, v)
}

function serverToolNames(serverTools, path) {
  if (serverTools === undefined) return ['web_search']
  expect(Array.isArray(serverTools) && serverTools.every((s) => typeof s === 'string'), path, 'an array of tool names', serverTools)
  return serverTools
}

// The tool-call-bearing lists of each protocol, read as [id, name] / ids.
function chatCalls(m) {
  return Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => (isObject(c) ? [str(c.id), isObject(c.function) ? str(c.function.name) : null] : [null, null])) : []
}
function blockCalls(m, type) {
  return Array.isArray(m.content) ? m.content.filter((b) => isObject(b) && b.type === type).map((b) => [str(b.id), str(b.name)]) : []
}
function itemCalls(items) {
  return items.filter((it) => isObject(it) && it.type === 'function_call').map((it) => [str(it.call_id), str(it.name)])
}

function history(protocol, list) {
  const calls = []
  const results = []
  for (const m of list) {
    if (!isObject(m)) continue
    if (protocol === 'responses') {
      if (m.type === 'function_call' && typeof m.call_id === 'string') calls.push(m.call_id)
      else if (m.type === 'function_call_output' && typeof m.call_id === 'string') results.push(m.call_id)
    } else if (protocol === 'chat') {
      if (m.role === 'assistant') for (const [id] of chatCalls(m)) if (id !== null) calls.push(id)
      if (m.role === 'tool' && typeof m.tool_call_id === 'string') results.push(m.tool_call_id)
    } else if (Array.isArray(m.content)) {
      for (const b of m.content) {
        if (!isObject(b)) continue
        if (b.type === 'tool_use' && typeof b.id === 'string') calls.push(b.id)
        else if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') results.push(b.tool_use_id)
      }
    }
  }
  return { calls, results }
}

function toolName(t) {
  if (!isObject(t)) return null
  if (isObject(t.function) && typeof t.function.name === 'string') return t.function.name
  return str(t.name)
}

function contentText(c, i) {
  if (typeof c === 'string') return c
  if (c === undefined) return ''
  return toJson(c, `toolResults[${i}].content`)
}

/**
 * The follow-up request after the gateway ran server tools: `original`'s messages, the assistant
 * message as it came, then one result per call in call order (see index.d.ts).
 */
function buildServerToolFollowup(params, options) {
  expect(isObject(params), 'params', 'an object', params)
  const { original, assistant, toolResults } = params
  const protocol = params.protocol === undefined ? 'chat' : params.protocol
  if (!PROTOCOLS.includes(protocol)) throw new TypeError(`protocol: expected 'chat', 'responses' or 'anthropic', got ${typeof protocol === 'string' ? JSON.stringify(protocol) : describe(protocol)}`)
  const serverTools = serverToolNames(params.serverTools, 'serverTools')
  const o = options === undefined || options === null ? {} : options
  expect(isObject(o), 'options', 'an object', options)
  if (o.onMissing !== undefined && o.onMissing !== 'error' && o.onMissing !== 'synthesize') {
    throw new TypeError(`options.onMissing: expected 'error' or 'synthesize', got ${typeof o.onMissing === 'string' ? JSON.stringify(o.onMissing) : describe(o.onMissing)}`)
  }
  if (o.syntheticText !== undefined) expect(typeof o.syntheticText === 'string', 'options.syntheticText', 'a string', o.syntheticText)
  expect(isObject(original), 'original', 'an object (the chat-protocol request as it entered chat processing)', original)
  const listKey = protocol === 'responses' ? 'input' : 'messages'
  const list = original[listKey]
  const inputIsString = protocol === 'responses' && typeof list === 'string'
  if (!inputIsString) expect(Array.isArray(list), `original.${listKey}`, protocol === 'responses' ? 'an array of items or a string' : 'an array of messages', list)
  let assistantItems
  let calls
  if (protocol === 'responses') {
    const items = Array.isArray(assistant) ? assistant : isObject(assistant) && Array.isArray(assistant.output) ? assistant.output : null
    expect(items !== null, 'assistant', 'the output items of the response (an array, or an object with `output`)', assistant)
    assistantItems = items
    calls = itemCalls(items)
  } else {
    expect(isObject(assistant), 'assistant', 'the assistant message', assistant)
    assistantItems = [assistant]
    calls = protocol === 'chat' ? chatCalls(assistant) : blockCalls(assistant, 'tool_use')
  }
  expect(Array.isArray(toolResults), 'toolResults', 'an array of {toolCallId, name, content}', toolResults)
  toolResults.forEach((r, i) => expect(isObject(r), `toolResults[${i}]`, 'an object {toolCallId, name, content}', r))
  const h = inputIsString ? { calls: [], results: [] } : history(protocol, list)
  const skeleton = {
    protocol,
    serverTools,
    onMissing: o.onMissing,
    syntheticText: o.syntheticText,
    keys: Object.keys(original),
    parameterKeys: isObject(original.parameters) ? Object.keys(original.parameters) : null,
    inputIsString,
    tools: Array.isArray(original.tools) ? original.tools.map(toolName) : null,
    historyCalls: h.calls,
    historyResults: h.results,
    calls,
    results: toolResults.map((r) => str(r.toolCallId)),
  }
  const plan = JSON.parse(native.serverToolFollowupJson(toJson(skeleton, 'request')))
  if (plan.error) {
    const e = new Error(plan.error.message)
    e.code = 'TOOL_RESULT_PAIRING'
    if (plan.error.id !== null) e.toolCallId = plan.error.id
    throw e
  }
  for (const { path, result } of plan.fills) {
    let at = plan.append
    for (let k = 0; k < path.length - 1; k++) at = at[path[k]]
    at[path[path.length - 1]] = contentText(toolResults[result].content, result)
  }
  for (const item of plan.prepend) item.content = list
  const out = {}
  for (const k of Object.keys(original)) if (!plan.drop.includes(k)) out[k] = original[k]
  if (plan.dropParameters.length > 0) {
    const parameters = {}
    for (const k of Object.keys(original.parameters)) if (!plan.dropParameters.includes(k)) parameters[k] = original.parameters[k]
    out.parameters = parameters
  }
  if (plan.keepTools !== null) out.tools = plan.keepTools.map((i) => original.tools[i])
  out[listKey] = [...plan.prepend, ...(inputIsString ? [] : list), ...(plan.appendAssistant ? assistantItems : []), ...plan.append]
  return out
}

/** The assistant answer without the calls of tools the gateway ran itself (see index.d.ts). */
function stripServerToolCalls(assistant, serverTools) {
  const names = serverToolNames(serverTools, 'serverTools')
  const pairs = (items) => items.map((b) => (isObject(b) ? [str(b.type), str(b.name)] : [null, null]))
  const skeleton = { serverTools: names }
  if (Array.isArray(assistant)) {
    skeleton.output = pairs(assistant)
    skeleton.array = true
  } else {
    expect(isObject(assistant), 'assistant', 'an assistant message, Anthropic message, or Responses output', assistant)
    if (Array.isArray(assistant.tool_calls)) skeleton.toolCalls = chatCalls(assistant).map(([, name]) => name)
    else if (Array.isArray(assistant.content)) skeleton.content = pairs(assistant.content)
    else if (Array.isArray(assistant.output)) skeleton.output = pairs(assistant.output)
  }
  const s = JSON.parse(native.stripServerToolCallsJson(toJson(skeleton, 'assistant')))
  if (s === null) return assistant
  if (s.key === null) return s.keep.map((i) => assistant[i])
  const out = { ...assistant }
  const kept = s.keep.map((i) => assistant[s.key][i])
  if (kept.length === 0 && s.deleteIfEmpty) delete out[s.key]
  else out[s.key] = kept
  return out
}

module.exports = { buildServerToolFollowup, stripServerToolCalls }
