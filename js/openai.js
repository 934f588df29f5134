'use strict'
// OpenAI SDK helpers (the `transcript-hygiene/openai` entry). Glue only: a chat completion's text is
// read by cleanResponse, a chunk stream's by ResponseStreamCleaner; this file puts what they find
// back into the OpenAI shapes (`tool_calls`, `finish_reason`, `reasoning_content`).

const { cleanResponse } = require('./response.js')
const { ResponseStreamCleaner } = require('./response-stream.js')
const { OPTIONS, pick } = require('./options.js')
const { describe } = require('./args.js')

/** The reply options for one completion: the caller's, the model named by the reply by default. */
function replyOptions(own, model) {
  return own.model === undefined && typeof model === 'string' ? { ...own, model } : own
}

/** The tool calls a message already has, for cleanResponse's `structuredToolCalls`. */
const nativeCalls = (calls) => (Array.isArray(calls) ? calls.filter((c) => c && c.function && typeof c.function.name === 'string') : [])

/**
 * A completion whose messages hold tool calls written as text → the same completion with them in
 * `tool_calls` (after any the API returned), `finish_reason: 'tool_calls'`, the markup removed
 * from `content`, reasoning in `reasoning_content`. Returns `completion` itself when nothing changed.
 */
function cleanChatCompletion(completion, options) {
  if (completion === null || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
    throw new TypeError(`completion: expected a chat completion object with a choices array, got ${describe(completion)}`)
  }
  const opts = replyOptions(pick(options, OPTIONS.chatCompletion, 'options'), completion.model)
  let changed = false
  const choices = completion.choices.map((choice) => {
    const message = choice?.message
    if (!message || typeof message.content !== 'string') return choice
    const native = nativeCalls(message.tool_calls)
    const r = cleanResponse(message.content, native.length > 0 ? { ...opts, structuredToolCalls: native } : opts)
    if (r.content === message.content && r.reasoning === '' && r.toolCalls.length === 0) return choice
    changed = true
    const m = { ...message, content: r.content === '' && r.toolCalls.length > 0 ? null : r.content }
    if (r.reasoning !== '') m.reasoning_content = typeof message.reasoning_content === 'string' && message.reasoning_content !== '' ? `${message.reasoning_content}\n\n${r.reasoning}` : r.reasoning
    if (r.toolCalls.length > 0) m.tool_calls = [...(Array.isArray(message.tool_calls) ? message.tool_calls : []), ...r.toolCalls]
    const finish = r.toolCalls.length > 0 && choice.finish_reason === 'stop' ? 'tool_calls' : choice.finish_reason
    return { ...choice, message: m, finish_reason: finish }
  })
  return changed ? { ...completion, choices } : completion
}

/** The delta fields for what a cleaner gave (content, reasoning, calls as indexed tool_calls). */
function deltaOf(delta, r, state) {
  const d = { ...delta, content: r.content }
  if (r.reasoning !== '') d.reasoning_content = typeof delta.reasoning_content === 'string' ? delta.reasoning_content + r.reasoning : r.reasoning
  if (r.toolCalls.length > 0) {
    const calls = r.toolCalls.map((c) => ({ index: state.nextIndex++, id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }))
    d.tool_calls = Array.isArray(delta.tool_calls) ? [...delta.tool_calls, ...calls] : calls
    state.calls += calls.length
  }
  return d
}

/**
 * A stream of chat completion chunks (the `openai` client's `Stream`, or any async iterable of
 * chunks) → the same chunks with each choice's text cleaned as it arrives: calls as
 * `delta.tool_calls` as soon as their markup closes, reasoning as `delta.reasoning_content`, the
 * choice's `finish_reason` `'tool_calls'` when calls were found.
 */
function cleanChatCompletionStream(stream, options) {
  if (stream === null || typeof stream !== 'object' || typeof stream[Symbol.asyncIterator] !== 'function') {
    throw new TypeError(`stream: expected an async iterable of chat completion chunks, got ${describe(stream)}`)
  }
  return cleanChunks(stream, pick(options, OPTIONS.chatCompletion, 'options'))
}

async function* cleanChunks(stream, own) {
  const states = new Map() // choice index → { cleaner, nextIndex, calls, done }
  let last = null
  for await (const chunk of stream) {
    if (!chunk || !Array.isArray(chunk.choices) || chunk.choices.length === 0) {
      yield chunk
      continue
    }
    last = chunk
    let changed = false
    const choices = chunk.choices.map((choice) => {
      if (!choice || typeof choice.index !== 'number') return choice
      let s = states.get(choice.index)
      if (s === undefined) {
        s = { cleaner: new ResponseStreamCleaner(replyOptions(own, chunk.model)), nextIndex: 0, calls: 0, done: false }
        states.set(choice.index, s)
      }
      const delta = choice.delta ?? {}
      for (const c of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) if (c && typeof c.index === 'number') s.nextIndex = Math.max(s.nextIndex, c.index + 1)
      if (s.done) return choice
      const hasText = typeof delta.content === 'string'
      const r = hasText ? s.cleaner.push(delta.content) : null
      if (choice.finish_reason == null) {
        if (r === null) return choice
        changed = true
        return { ...choice, delta: deltaOf(delta, r, s) }
      }
      // The choice's last chunk: what the cleaner held back comes with it.
      s.done = true
      const end = s.cleaner.finish()
      const both = r === null ? end : { content: r.content + end.content, reasoning: r.reasoning + end.reasoning, toolCalls: r.toolCalls.concat(end.toolCalls) }
      changed = true
      const d = deltaOf(delta, both, s)
      if (!hasText && both.content === '') {
        // Nothing to add: the delta's own content field as it came (absent, or null).
        if ('content' in delta) d.content = delta.content
        else delete d.content
      }
      return { ...choice, delta: d, finish_reason: s.calls > 0 && choice.finish_reason === 'stop' ? 'tool_calls' : choice.finish_reason }
    })
    yield changed ? { ...chunk, choices } : chunk
  }
  // A stream that ended without a finish_reason: what is still held back, in one last chunk.
  for (const [index, s] of states) {
    if (s.done) continue
    s.done = true
    const end = s.cleaner.finish()
    if (end.content === '' && end.reasoning === '' && end.toolCalls.length === 0) continue
    yield { ...last, choices: [{ index, delta: deltaOf({}, end, s), finish_reason: null }] }
  }
}

module.exports = { cleanChatCompletion, cleanChatCompletionStream }
