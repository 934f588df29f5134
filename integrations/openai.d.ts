// Types of transcript-hygiene/openai: helpers for the OpenAI SDK's chat completions (`openai`, an
// optional peer dependency), typed with the installed package's own types.
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { CleanResponseOptions, OpenAIFunctionTool } from '../index.js'

/**
 * Options of the helpers: those of `cleanResponse`, with the request's `tools` as the OpenAI SDK
 * types them; `model` defaults to the completion's `model`.
 */
export interface ChatCompletionCleanOptions extends Omit<CleanResponseOptions, 'structuredToolCalls' | 'tools'> {
  tools?: readonly (ChatCompletionTool | OpenAIFunctionTool)[]
}

/**
 * A completion whose messages hold tool calls written as text → the same completion with the calls
 * in `message.tool_calls` (after those the API returned; one written again in the text is not
 * repeated), `finish_reason: 'tool_calls'`, the markup removed from `content` (`null` when nothing
 * else is left) and reasoning in `message.reasoning_content`. The input is never mutated; it is
 * returned itself when nothing changed.
 * @throws TypeError when `completion` has no `choices` array or an option has the wrong type.
 */
export declare function cleanChatCompletion<T extends ChatCompletion>(completion: T, options?: ChatCompletionCleanOptions): T

/**
 * The chunks of a streamed completion (`await client.chat.completions.create({..., stream: true})`)
 * with each choice's text cleaned as it arrives: each call as one `delta.tool_calls` entry (with
 * its `id`, `name` and whole `arguments`) as soon as its markup closes, reasoning as
 * `delta.reasoning_content`, `finish_reason: 'tool_calls'` when calls were found; text that may
 * still be markup is held back until it is known. Every chunk comes out, in order.
 * @throws TypeError when `stream` is not async iterable or an option has the wrong type.
 */
export declare function cleanChatCompletionStream(stream: AsyncIterable<ChatCompletionChunk>, options?: ChatCompletionCleanOptions): AsyncIterable<ChatCompletionChunk>
