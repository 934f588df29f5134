// Types of transcript-hygiene/ai-sdk: language-model middleware for Vercel's AI SDK (`ai`, an
// optional peer dependency). The middleware type is the installed `ai` package's own.
import type { LanguageModelMiddleware } from 'ai'
import type { CleanResponseOptions, OpenClawVersion, TranscriptPolicyOverride } from '../index.js'

/**
 * Options of {@link toolCallRecovery}: those of `cleanResponse`. `tools` defaults to the call's own
 * function tools, `model` to the wrapped model's id; `structuredToolCalls` is the reply's own
 * `tool-call` parts.
 */
export type ToolCallRecoveryOptions = Omit<CleanResponseOptions, 'structuredToolCalls'>

/**
 * Middleware that recovers tool calls a model wrote as text. `generateText`: each text part holding
 * call markup becomes a `reasoning` part (its reasoning), a `text` part (what is left to show) and
 * one `tool-call` part per call; the finish reason becomes `tool-calls`. `streamText`: the same part
 * by part, each call (`tool-input-start` / `-delta` / `-end`, `tool-call`) as soon as its markup
 * closes, every other part passed through as it came. What was found is reported in
 * `providerMetadata.transcriptHygiene` (`{format, problems, problemKinds}`).
 * @throws TypeError when an option has the wrong type.
 */
export declare function toolCallRecovery(options?: ToolCallRecoveryOptions): LanguageModelMiddleware

/** Options of {@link transcriptHygiene}: the policy inputs of `sanitizeSessionHistory`. */
export interface TranscriptHygieneOptions {
  /** Provider id for the policy; default: the wrapped model's provider up to its first dot (`anthropic.messages` → `anthropic`). */
  provider?: string
  /** pi-ai API name; default: from the wrapped model's provider (`anthropic-messages`, `openai-responses`, `google-generative-ai`, `openai-completions`). */
  modelApi?: string
  /** Model id; default: the wrapped model's id. */
  modelId?: string
  /** Tool names a call may name; default: the call's tools. */
  allowedToolNames?: Iterable<string>
  /** Policy overrides, field by field. */
  policy?: TranscriptPolicyOverride
  /**
   * The OpenClaw release whose pass runs (default: `getOpenClawVersion()`, `'2026.9.6'` unless
   * changed). In `'2026.9.6'` a provider without a bundled plugin (Mistral among them) gets the
   * model API's policy: strict 9-character ids for Mistral need `policy: { toolCallIdMode:
   * 'strict9' }` or `'2026.3.23'`.
   */
  openclawVersion?: OpenClawVersion
  /** Keep the results of an errored or aborted assistant turn. */
  preserveErroredAssistantResults?: boolean
  /** Text of the result synthesised for a call that has none. */
  syntheticToolResultText?: string
  maxDimensionPx?: number
  maxBytes?: number
  maxDecodeBytes?: number
}

/**
 * Middleware whose `transformParams` runs the transcript hygiene pass (`sanitizeSessionHistory`)
 * on the call's prompt before the model sees it: tool-call ids in the provider's alphabet, every
 * `tool-call` answered by one `tool-result` in the next message (missing results synthesised,
 * orphans and duplicates dropped), turn order, malformed or unknown calls. Messages no rule touched
 * are the caller's own objects; the prompt itself when nothing changed.
 * @throws TypeError when an option has the wrong type.
 */
export declare function transcriptHygiene(options?: TranscriptHygieneOptions): LanguageModelMiddleware
