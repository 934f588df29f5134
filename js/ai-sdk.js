'use strict'
// Vercel AI SDK language-model middleware (the `transcript-hygiene/ai-sdk` entry). Glue only: the
// reply is read by cleanResponse / ResponseStreamCleaner and the prompt is repaired by
// sanitizeSessionHistory; this file translates between the SDK's parts and those functions' shapes.
// Written against the middleware contract of AI SDK 6 (specification v3); AI SDK 7 runs it as it is
// (its v4 parts have the same shapes). A v2 finish reason (a string) is handled too.

const { cleanResponse } = require('./response.js')
const { ResponseStreamCleaner } = require('./response-stream.js')
const { sanitizeSessionHistory } = require('./transcript.js')
const { OPTIONS, perArray, pick } = require('./options.js')

// ---- replies: text parts holding pseudo tool calls ----

// The call's tools in OpenAI's shape, made once per tools array (as cleanResponse checks them):
// the same array each call then costs cleanResponse nothing to read again.
const openaiTools = new WeakMap()

/** The call's function tools in the OpenAI shape cleanResponse types argument values with. */
function toolsOf(params) {
  if (!Array.isArray(params?.tools)) return []
  return perArray(openaiTools, params.tools, 'params.tools', (items) => {
    const out = []
    for (const t of items) {
      if (t && t.type === 'function' && typeof t.name === 'string') out.push({ type: 'function', function: { name: t.name, parameters: t.inputSchema ?? t.parameters } })
    }
    return out
  })
}

/** cleanResponse options for one call: the middleware's own, else the call's tools and model id. */
function cleanOptions(own, params, model) {
  const o = { ...own }
  if (o.tools === undefined) o.tools = toolsOf(params)
  if (o.model === undefined && typeof model?.modelId === 'string') o.model = model.modelId
  return o
}

/** `tool-call` parts for cleaned calls (`input` is the arguments' JSON text, as the spec says). */
const toolCallPart = (call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: call.function.arguments })

/** The native calls already in the reply, so markup repeating one of them is not returned twice. */
const structured = (parts) => parts.filter((p) => p && p.type === 'tool-call').map((p) => ({ id: p.toolCallId, name: p.toolName, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input ?? {}) }))

/** The finish reason of a reply that now ends in tool calls: v3's object or v2's string. */
function toolCallsFinish(reason) {
  if (typeof reason === 'string') return reason === 'stop' ? 'tool-calls' : reason
  if (reason && typeof reason === 'object' && reason.unified === 'stop') return { ...reason, unified: 'tool-calls' }
  return reason
}

/** providerMetadata with what the cleaner found (format, problems) under `transcriptHygiene`. */
function withReport(metadata, report) {
  if (report.format === null && report.problems.length === 0) return metadata
  return { ...metadata, transcriptHygiene: { format: report.format, problems: report.problems, problemKinds: report.problemKinds } }
}

function mergeReport(into, r) {
  if (into.format === null) into.format = r.format
  into.problems.push(...r.problems)
  into.problemKinds.push(...r.problemKinds)
}

/**
 * The middleware: generate turns a text part holding pseudo tool calls into `reasoning`, `text`
 * and `tool-call` parts; stream does the same part by part (see wrapStream below).
 */
function toolCallRecovery(options) {
  const own = pick(options, OPTIONS.toolCallRecovery, 'options')
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const result = await doGenerate()
      const content = Array.isArray(result.content) ? result.content : []
      if (!content.some((p) => p && p.type === 'text' && typeof p.text === 'string')) return result
      const opts = cleanOptions(own, params, model)
      opts.structuredToolCalls = structured(content)
      const report = { format: null, problems: [], problemKinds: [] }
      const out = []
      let calls = 0
      let changed = false
      for (const part of content) {
        if (!part || part.type !== 'text' || typeof part.text !== 'string') {
          out.push(part)
          continue
        }
        const r = cleanResponse(part.text, opts)
        mergeReport(report, r)
        if (r.content === part.text && r.reasoning === '' && r.toolCalls.length === 0) {
          out.push(part)
          continue
        }
        changed = true
        if (r.reasoning !== '') out.push({ type: 'reasoning', text: r.reasoning })
        if (r.content !== '') out.push({ ...part, text: r.content })
        for (const call of r.toolCalls) out.push(toolCallPart(call))
        calls += r.toolCalls.length
      }
      if (!changed && report.problems.length === 0) return result
      return {
        ...result,
        content: changed ? out : content,
        finishReason: calls > 0 ? toolCallsFinish(result.finishReason) : result.finishReason,
        providerMetadata: withReport(result.providerMetadata, report),
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      const { stream, ...rest } = await doStream()
      return { ...rest, stream: stream.pipeThrough(recoveryStream(cleanOptions(own, params, model))) }
    },
  }
}

/**
 * The stream transform. Each text part (by id) gets its own cleaner: its deltas go in, and what is
 * safe to show comes out as they arrive — visible text as `text-delta`s of that part (opened on
 * its first visible character, so a reply that is only a call has no empty text part), reasoning
 * as a `reasoning-*` part of its own, each call as `tool-input-start` / `-delta` / `-end` and
 * `tool-call` as soon as its markup closes. Every other part passes through as the same object.
 */
function recoveryStream(opts) {
  const open = new Map() // text id → { cleaner, textStarted, reasoningStarted, part }
  const report = { format: null, problems: [], problemKinds: [] }
  let calls = 0
  let nativeCalls = []

  function emit(controller, id, s, r) {
    if (r.reasoning !== '') {
      if (!s.reasoningStarted) {
        s.reasoningStarted = true
        controller.enqueue({ type: 'reasoning-start', id: `${id}:reasoning` })
      }
      controller.enqueue({ type: 'reasoning-delta', id: `${id}:reasoning`, delta: r.reasoning })
    }
    if (r.content !== '') {
      if (!s.textStarted) {
        s.textStarted = true
        controller.enqueue(s.start)
      }
      controller.enqueue({ type: 'text-delta', id, delta: r.content })
    }
    for (const call of r.toolCalls) {
      calls++
      const { id: callId, function: f } = call
      controller.enqueue({ type: 'tool-input-start', id: callId, toolName: f.name })
      controller.enqueue({ type: 'tool-input-delta', id: callId, delta: f.arguments })
      controller.enqueue({ type: 'tool-input-end', id: callId })
      controller.enqueue(toolCallPart(call))
    }
  }

  function end(controller, id, s, endPart) {
    open.delete(id)
    const r = s.cleaner.finish()
    mergeReport(report, r)
    emit(controller, id, s, r)
    if (s.reasoningStarted) controller.enqueue({ type: 'reasoning-end', id: `${id}:reasoning` })
    if (s.textStarted) controller.enqueue(endPart ?? { type: 'text-end', id })
  }

  return new TransformStream({
    transform(part, controller) {
      switch (part?.type) {
        case 'text-start': {
          // A native call seen before this text part shadows the same call written in its text.
          const o = nativeCalls.length > 0 ? { ...opts, structuredToolCalls: nativeCalls } : opts
          open.set(part.id, { cleaner: new ResponseStreamCleaner(o), start: part, textStarted: false, reasoningStarted: false })
          return
        }
        case 'text-delta': {
          const s = open.get(part.id)
          if (s === undefined || typeof part.delta !== 'string') break
          emit(controller, part.id, s, s.cleaner.push(part.delta))
          return
        }
        case 'text-end': {
          const s = open.get(part.id)
          if (s === undefined) break
          end(controller, part.id, s, part)
          return
        }
        case 'tool-call':
          nativeCalls = nativeCalls.concat(structured([part]))
          break
        case 'finish': {
          for (const [id, s] of open) end(controller, id, s, undefined)
          if (calls === 0 && report.format === null && report.problems.length === 0) break
          controller.enqueue({
            ...part,
            finishReason: calls > 0 ? toolCallsFinish(part.finishReason) : part.finishReason,
            providerMetadata: withReport(part.providerMetadata, report),
          })
          return
        }
      }
      controller.enqueue(part)
    },
    flush(controller) {
      for (const [id, s] of open) end(controller, id, s, undefined)
    },
  })
}

// ---- prompts: the hygiene pass on the SDK's messages ----

const SOURCE = Symbol('transcript-hygiene source part')
const EXTRA = Symbol('transcript-hygiene parts kept beside a tool result')

/** The pi-ai API name the policy reads, from an AI SDK provider id (`anthropic.messages` …). */
const API_OF = [
  [/^anthropic\b|\.messages$/, 'anthropic-messages'],
  [/^openai\.responses$|^azure\.responses$/, 'openai-responses'],
  [/^google\.generative-ai$/, 'google-generative-ai'],
  [/^google\.vertex/, 'google-vertex'],
  [/\.chat$|^openai/, 'openai-completions'],
]

function policyParams(own, model) {
  const id = typeof model?.provider === 'string' ? model.provider : ''
  const params = { ...own }
  if (params.provider === undefined && id !== '') params.provider = id.split('.')[0]
  if (params.modelApi === undefined) {
    const hit = API_OF.find(([re]) => re.test(id))
    if (hit) params.modelApi = hit[1]
  }
  if (params.modelId === undefined && typeof model?.modelId === 'string') params.modelId = model.modelId
  return params
}

const mark = (block, part) => Object.assign(block, { [SOURCE]: part })

/** An SDK part as the block the rules read (tool calls and text); anything else as it is. */
function toBlock(part, role) {
  if (!part || typeof part !== 'object') return part
  if (part.type === 'text' && typeof part.text === 'string') return mark({ type: 'text', text: part.text }, part)
  if (role === 'assistant' && part.type === 'reasoning' && typeof part.text === 'string') return mark({ type: 'thinking', thinking: part.text }, part)
  if (role === 'assistant' && part.type === 'tool-call' && part.providerExecuted !== true) {
    return mark({ type: 'toolCall', id: part.toolCallId, name: part.toolName, arguments: part.input }, part)
  }
  return part
}

/** The block back as an SDK part: the caller's own part when no rule touched it. */
function fromBlock(block, converted) {
  const part = block?.[SOURCE]
  if (part === undefined) {
    if (block && block.type === 'text') return { type: 'text', text: block.text }
    return block
  }
  if (converted.has(block)) return part
  if (block.type === 'text') return { ...part, text: block.text }
  if (block.type === 'thinking') return { ...part, text: block.thinking }
  return { ...part, toolCallId: block.id, toolName: block.name, input: block.arguments }
}

/** The text of a tool output, for the rules that read a result's text. */
function outputText(output) {
  const v = output?.value
  if (typeof v === 'string') return v
  return v === undefined ? '' : JSON.stringify(v) ?? ''
}

/** The SDK prompt as agent messages; `converted` collects the blocks and messages made here. */
function toAgent(prompt, converted) {
  const out = []
  for (const m of prompt) {
    if (!m || typeof m !== 'object' || !Array.isArray(m.content) || (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'tool')) {
      out.push(m)
      continue
    }
    if (m.role === 'tool') {
      const results = []
      const extra = []
      for (const part of m.content) {
        if (part && part.type === 'tool-result') {
          const isError = part.output?.type === 'error-text' || part.output?.type === 'error-json'
          const r = mark({ role: 'toolResult', toolCallId: part.toolCallId, toolName: part.toolName, content: [{ type: 'text', text: outputText(part.output) }], isError }, part)
          converted.add(r)
          results.push(r)
        } else extra.push(part)
      }
      if (results.length === 0) {
        out.push(m)
        continue
      }
      results[0][EXTRA] = { message: m, parts: extra, results }
      out.push(...results)
      continue
    }
    const content = m.content.map((p) => toBlock(p, m.role))
    for (const b of content) if (b !== null && typeof b === 'object') converted.add(b)
    const a = mark({ role: m.role, content }, m)
    if (m.role === 'assistant' && content.some((b) => b && b.type === 'toolCall')) a.stopReason = 'toolUse'
    converted.add(a)
    out.push(a)
  }
  return out
}

/** A tool result message back as an SDK `tool-result` part. */
function fromResult(r, converted) {
  const part = r[SOURCE]
  if (part !== undefined && converted.has(r)) return part
  if (part !== undefined) return { ...part, toolCallId: r.toolCallId, toolName: r.toolName ?? part.toolName }
  // A result a rule added (a call with none): the rules' text, as an error output.
  const text = Array.isArray(r.content) ? r.content.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('') : ''
  return { type: 'tool-result', toolCallId: r.toolCallId, toolName: r.toolName ?? '', output: { type: r.isError ? 'error-text' : 'text', value: text } }
}

/** The agent messages back as an SDK prompt; the caller's own message where nothing changed. */
function fromAgent(messages, converted) {
  const out = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m && m.role === 'toolResult') {
      let j = i
      while (j < messages.length && messages[j] && messages[j].role === 'toolResult') j++
      const group = messages.slice(i, j)
      i = j - 1
      const first = group[0][EXTRA]
      if (first !== undefined && group.length === first.results.length && group.every((r, k) => r === first.results[k])) {
        out.push(first.message) // the very results of one tool message, unchanged and in order
        continue
      }
      const content = []
      let base
      for (const r of group) {
        const x = r[EXTRA]
        if (x !== undefined) {
          base ??= x.message
          content.push(...x.parts)
        }
        content.push(fromResult(r, converted))
      }
      out.push(base !== undefined ? { ...base, content } : { role: 'tool', content })
      continue
    }
    const src = m?.[SOURCE]
    if (src === undefined) {
      out.push(m)
      continue
    }
    // Fields a rule set on the message itself (usage, stopReason) are not the SDK's: only the
    // parts decide whether the caller's message comes back.
    const content = Array.isArray(m.content) ? m.content.map((b) => fromBlock(b, converted)) : src.content
    const same = content.length === src.content.length && content.every((p, k) => p === src.content[k])
    out.push(same ? src : { ...src, content })
  }
  return out
}

/**
 * The middleware whose transformParams runs sanitizeSessionHistory on the call's prompt, for the
 * provider and model called (or those given).
 */
function transcriptHygiene(options) {
  const own = pick(options, OPTIONS.transcriptHygiene, 'options')
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params, model }) => {
      if (!Array.isArray(params?.prompt)) return params
      const converted = new WeakSet()
      const messages = toAgent(params.prompt, converted)
      const hp = policyParams(own, model)
      if (hp.allowedToolNames === undefined && Array.isArray(params.tools)) hp.allowedToolNames = params.tools.filter((t) => t && typeof t.name === 'string').map((t) => t.name)
      const cleaned = sanitizeSessionHistory({ ...hp, messages })
      if (cleaned === messages) return params
      const prompt = fromAgent(cleaned, converted)
      if (prompt.length === params.prompt.length && prompt.every((m, i) => m === params.prompt[i])) return params
      return { ...params, prompt }
    },
  }
}

module.exports = { toolCallRecovery, transcriptHygiene }
