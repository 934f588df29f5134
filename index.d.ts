// Public types of transcript-hygiene, written by hand (binding.d.ts is the generated, internal
// native surface; do not import it). See docs/API.md for the reference with examples.
//
// Conventions that hold for every function below:
// - Everything is synchronous. (OpenClaw's `sanitizeSessionHistory` and
//   `sanitizeSessionMessagesImages` are async.)
// - Inputs are never mutated. A message or block no rule touched comes back as the very same
//   object; one a rule edits comes back as a shallow copy with unknown fields and key order kept.
// - Functions documented so return the input array itself when nothing changed.
// - Bad input (not an array, a getter that throws) throws a `TypeError` naming the path, e.g.
//   `messages[3].content[1]: could not be read (...)`. Entries the rules do not recognise
//   (unknown roles, unknown block types, non-object entries) pass through untouched.
// - Message-list functions are generic over the caller's message type `T`: the result holds the
//   caller's messages (or shallow copies with the rule's edits), plus the few message shapes a
//   rule may insert, which the return type names (`UserMessage`, `ToolResultMessage`).

// ---------------------------------------------------------------------------------------------
// Content blocks
// ---------------------------------------------------------------------------------------------

/**
 * Gemini thought-signature keys, which may sit on any block. Only `stripThoughtSignatures` (and
 * the image pass in `full` mode) reads or deletes them; every other rule passes them through.
 */
export interface ThoughtSignatureFields {
  /** Snake-case signature (Claude stores `msg_…` ids here). */
  thought_signature?: unknown
  /** camelCase signature (pi-ai's `ToolCall.thoughtSignature`). */
  thoughtSignature?: unknown
}

/** `{type: "text"}` block (pi-ai `TextContent`). */
export interface TextContent extends ThoughtSignatureFields {
  type: 'text'
  text: string
  textSignature?: string
}

/**
 * `{type: "thinking"}` block (pi-ai `ThinkingContent`). For OpenAI Responses, `thinkingSignature`
 * holds the reasoning item, `{"id": "rs_…", "type": "reasoning"}`, as a JSON string or (older
 * sessions) as an object.
 */
export interface ThinkingContent extends ThoughtSignatureFields {
  type: 'thinking'
  thinking: string
  thinkingSignature?: string | { id?: string; type?: string; [key: string]: unknown }
  redacted?: boolean
}

/**
 * `{type: "image"}` block: base64 `data` and its MIME type. A `data:image/…;base64,` prefix is
 * accepted by the image functions and removed (OpenClaw rejects it as invalid base64).
 */
export interface ImageContent extends ThoughtSignatureFields {
  type: 'image'
  data: string
  mimeType: string
}

/** pi-ai tool call: `{type: "toolCall", id, name, arguments}`. */
export interface ToolCallContent extends ThoughtSignatureFields {
  type: 'toolCall'
  id: string
  name: string
  arguments: Record<string, unknown>
}

/** Legacy / Anthropic-native tool call: `{type: "toolUse", id, name, input}`. */
export interface ToolUseContent extends ThoughtSignatureFields {
  type: 'toolUse'
  id: string
  name: string
  input: unknown
}

/** Legacy tool call: `{type: "functionCall", id, name, arguments}`. */
export interface FunctionCallContent extends ThoughtSignatureFields {
  type: 'functionCall'
  id: string
  name: string
  arguments: unknown
}

/**
 * A tool call in any of the three shapes the rules recognise (`toolCall`, legacy `toolUse`,
 * legacy `functionCall`). Id sanitising, malformed-call dropping and pairing treat them alike.
 */
export type ToolCall = ToolCallContent | ToolUseContent | FunctionCallContent

/**
 * Anthropic-native `{type: "toolResult", toolUseId}` block inside a *user* message's content.
 * Only `validateAnthropicTurns` reads it (to keep the `toolUse` blocks it answers).
 */
export interface ToolResultContent extends ThoughtSignatureFields {
  type: 'toolResult'
  toolUseId: string
  content?: unknown
}

/**
 * Any other block (`redacted_thinking`, citations, provider-specific types). Passed through
 * untouched, except for thought-signature stripping.
 */
export interface OtherContent {
  type: string
  [key: string]: unknown
}

/** Blocks of a user message's array content. */
export type UserContent = TextContent | ImageContent | ToolResultContent | OtherContent

/** Blocks of an assistant message's content. */
export type AssistantContent = TextContent | ThinkingContent | ToolCall | OtherContent

/** Blocks of a `toolResult` message's content. */
export type ToolResultMessageContent = TextContent | ImageContent | OtherContent

/** Any content block. */
export type ContentBlock = TextContent | ThinkingContent | ImageContent | ToolCall | ToolResultContent | OtherContent

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/**
 * Where a user turn came from (OpenClaw `InputProvenance`). `inter_session` turns (written by
 * `sessions_send`) get a visible marker from `annotateInterSessionUserMessages`.
 */
export interface InputProvenance {
  kind: 'external_user' | 'inter_session' | 'internal_system'
  /** Never printed in the marker. */
  originSessionId?: string
  sourceSessionKey?: string
  sourceChannel?: string
  sourceTool?: string
}

/** Cost part of a {@link Usage} snapshot. */
export interface UsageCost {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  total: number
}

/**
 * The normalised usage snapshot `ensureAssistantUsageSnapshots` writes. `cost` is present only
 * when the source usage had a numeric cost field, or when the usage was missing, invalid or stale
 * (zero snapshot, with a zero cost).
 */
export interface Usage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** The reported total when there is one, else the sum of the four counts. */
  totalTokens: number
  cost?: UsageCost
}

/** Why an assistant turn ended (pi-ai `StopReason`). */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted'

/** A user turn (pi-ai `UserMessage`, plus OpenClaw's `provenance`). */
export interface UserMessage {
  role: 'user'
  content: string | UserContent[]
  /** Milliseconds since the epoch. */
  timestamp?: number
  provenance?: InputProvenance
}

/**
 * An assistant turn (pi-ai `AssistantMessage`). Legacy transcripts may hold a string, object or
 * null `content`; `sanitizeSessionHistory` turns it into one text block.
 */
export interface AssistantMessage {
  role: 'assistant'
  content: AssistantContent[]
  api?: string
  provider?: string
  model?: string
  responseId?: string
  usage?: Usage
  stopReason?: StopReason
  errorMessage?: string
  /** Milliseconds since the epoch. */
  timestamp?: number
}

/**
 * A tool result (pi-ai `ToolResultMessage`). Legacy transcripts carry `toolUseId` in place of, or
 * beside, `toolCallId`; the rules read `toolCallId` when it is a non-empty string, else `toolUseId`.
 */
export interface ToolResultMessage {
  role: 'toolResult'
  toolCallId: string
  toolUseId?: string
  toolName?: string
  content: ToolResultMessageContent[]
  /** UI data never meant for the model; `stripToolResultDetails` deletes it. */
  details?: unknown
  isError?: boolean
  /** Milliseconds since the epoch. */
  timestamp?: number
}

/** A compaction summary (pi-agent-core). Read, never changed, by the usage-snapshot step. */
export interface CompactionSummaryMessage {
  role: 'compactionSummary'
  summary: string
  tokensBefore?: number
  /** A number (ms) or an ISO 8601 string. */
  timestamp?: number | string
}

/**
 * A message of any other role (`branchSummary`, `custom`, …), or a known role in a shape the
 * rules do not recognise (legacy content). Passed through untouched.
 */
export interface UnknownRoleMessage {
  role: string
  [key: string]: unknown
}

/** A pi-agent-core `AgentMessage` as the functions see it. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | CompactionSummaryMessage | UnknownRoleMessage

/**
 * The constraint on a caller's message type: an object with a string `role`. pi-ai `Message`
 * and pi-agent-core `AgentMessage` (custom roles included) satisfy it.
 */
export interface MessageLike {
  readonly role: string
}

// ---------------------------------------------------------------------------------------------
// Policy
// ---------------------------------------------------------------------------------------------

/** How tool-call ids are rewritten: `strict` = `[a-zA-Z0-9]+` (≤ 40 chars), `strict9` = exactly 9 alphanumerics (Mistral). */
export type ToolCallIdMode = 'strict' | 'strict9'

/** `full`: assistant turns also lose foreign signatures and empty text (Google, Anthropic, Mistral). `images-only`: only images are sanitised. */
export type SanitizeMode = 'full' | 'images-only'

/**
 * Options of Gemini thought-signature stripping. Without them (the default) only a snake-case
 * `thought_signature` string starting with `msg_` is deleted. With both `true` (Google APIs and
 * OpenRouter/OpenCode/Kilo Gemini) `thought_signature` and `thoughtSignature` are deleted unless
 * the value is a string of canonical base64/base64url bytes.
 */
export interface ThoughtSignatureOptions {
  allowBase64Only?: boolean
  includeCamelCase?: boolean
}

/** What `resolveTranscriptPolicy` returns (OpenClaw 2026.3.23-2 field names). */
export interface TranscriptPolicy {
  sanitizeMode: SanitizeMode
  sanitizeToolCallIds: boolean
  /** Absent when ids are not rewritten. */
  toolCallIdMode?: ToolCallIdMode
  /** Always `true` at this OpenClaw version. */
  repairToolUseResultPairing: boolean
  /** Anthropic family except Kimi: keep thinking signatures (and empty text beside thinking). */
  preserveSignatures: boolean
  /** Present (both flags `true`) for Google APIs and Gemini behind OpenRouter/OpenCode/Kilo. */
  sanitizeThoughtSignatures?: Required<ThoughtSignatureOptions>
  /** Always `false` at this OpenClaw version; not read by any function. */
  sanitizeThinkingSignatures: boolean
  /** Claude models via anthropic, amazon-bedrock, anthropic-vertex, github-copilot. */
  dropThinkingBlocks: boolean
  applyGoogleTurnOrdering: boolean
  /** For the caller: `sanitizeSessionHistory` does not run `validateGeminiTurns` itself. */
  validateGeminiTurns: boolean
  /** For the caller: `sanitizeSessionHistory` does not run `validateAnthropicTurns` itself. */
  validateAnthropicTurns: boolean
  /** For the caller's persistence guard; the pairing repair inserts synthetic results regardless. */
  allowSyntheticToolResults: boolean
}

/**
 * A `policy` override for `sanitizeSessionHistory`: fields left out (or `undefined`) keep the
 * values resolved from provider/modelApi/modelId; `null` for `toolCallIdMode` or
 * `sanitizeThoughtSignatures` clears it. A full {@link TranscriptPolicy} is accepted.
 */
export interface TranscriptPolicyOverride {
  sanitizeMode?: SanitizeMode
  sanitizeToolCallIds?: boolean
  toolCallIdMode?: ToolCallIdMode | null
  repairToolUseResultPairing?: boolean
  preserveSignatures?: boolean
  sanitizeThoughtSignatures?: ThoughtSignatureOptions | null
  sanitizeThinkingSignatures?: boolean
  dropThinkingBlocks?: boolean
  applyGoogleTurnOrdering?: boolean
  validateGeminiTurns?: boolean
  validateAnthropicTurns?: boolean
  allowSyntheticToolResults?: boolean
  /** 2026.9.6 provider plugins' field: drop reasoning from OpenAI-compatible chat history (read with `openclawVersion: '2026.9.6'` only). */
  dropReasoningFromHistory?: boolean
  /** 2026.9.6 Anthropic plugin's field: keep native `toolu_…` ids on their first use (read with `openclawVersion: '2026.9.6'` only). */
  preserveNativeAnthropicToolUseIds?: boolean
}

/**
 * What `resolveTranscriptPolicy` returns with `openclawVersion: '2026.9.6'`: OpenClaw 2026.9.6's
 * field set, in its order (`sanitizeThinkingSignatures` is gone).
 */
export interface TranscriptPolicy2026_9 {
  sanitizeMode: SanitizeMode
  sanitizeToolCallIds: boolean
  /** Absent when ids are not rewritten. */
  toolCallIdMode?: ToolCallIdMode
  /** Anthropic's own plugin (and ClawRouter on the Messages API): `toolu_…` ids kept. */
  preserveNativeAnthropicToolUseIds: boolean
  repairToolUseResultPairing: boolean
  preserveSignatures: boolean
  /** OpenAI Responses (OpenAI's plugin) and Claude Opus 5.5 / Fable 5.1: no user-turn merge on the Messages API. */
  appendOnlyRuntimeContext: boolean
  sanitizeThoughtSignatures?: Required<ThoughtSignatureOptions>
  dropThinkingBlocks: boolean
  /** OpenAI-compatible chat completions, except Kimi/MiMo reasoning models and the SGLang and ClawRouter plugins. */
  dropReasoningFromHistory: boolean
  applyGoogleTurnOrdering: boolean
  validateGeminiTurns: boolean
  validateAnthropicTurns: boolean
  allowSyntheticToolResults: boolean
}

/**
 * The fields OpenClaw 2026.9.6's policy reads of the resolved model it passes beside the ids (an
 * OpenClaw model object can be passed as it is: other fields are not read). Read in
 * `openclawVersion: '2026.9.6'` only, and always by {@link sanitizeRequest}'s reasoning rules.
 */
export interface TranscriptPolicyModel {
  /** `true`: OpenAI-compatible chat (no provider plugin) keeps the reasoning in the history. */
  reasoning?: boolean
  /** `supportsReasoningEffort: false`: the Anthropic API with no provider plugin drops thinking blocks. */
  compat?: { supportsReasoningEffort?: boolean }
  /** `canonicalModelId`: the id the Claude rules read in place of `modelId` (deployment names). */
  params?: { canonicalModelId?: string }
}

/** Parameters of `resolveTranscriptPolicy`. Non-string values count as absent. */
export interface TranscriptPolicyParams {
  /** Provider id; trimmed, lowercased and de-aliased (`z.ai` → `zai`, `bedrock` → `amazon-bedrock`, …). */
  provider?: string | null
  /** pi-ai API name, e.g. `anthropic-messages`, `google-generative-ai`, `openai-responses`. */
  modelApi?: string | null
  /** Model id; matched by lowercase substring hints (`claude`, `gemini`). */
  modelId?: string | null
  /**
   * The release whose resolution to reproduce (absent: `setOpenClawVersion`'s default). In
   * `'2026.9.6'` the provider's bundled plugin decides (anthropic, google, google-gemini-cli,
   * google-vertex, openai, xai, sglang, ollama, ollama-cloud, opencode-go, openrouter,
   * github-copilot, clawrouter), or the official plugin a user of that provider has installed
   * (mistral, deepseek), else the model API and `model` alone; the provider id is only trimmed and
   * lowercased.
   */
  openclawVersion?: OpenClawVersion
  /** The resolved model's fields the 2026.9.6 policy reads (TypeError when one has the wrong type). */
  model?: TranscriptPolicyModel
}

// ---------------------------------------------------------------------------------------------
// Reports, session manager
// ---------------------------------------------------------------------------------------------

/** Names of the rules that record changes. Other strings may appear in later versions. */
export type ChangeRule =
  | 'annotateInterSessionUserMessages'
  | 'canonicalizeAssistantContent'
  | 'sanitizeToolCallIds'
  | 'stripThoughtSignatures'
  | 'sanitizeImages'
  | 'dropThinkingBlocks'
  | 'repairToolCallInputs'
  | 'repairToolUseResultPairing'
  | 'stripToolResultDetails'
  | 'usageSnapshots'
  | 'downgradeOpenAIReasoningBlocks'
  | 'downgradeOpenAIFunctionCallReasoningPairs'
  | 'sanitizeGoogleTurnOrdering'
  | 'validateGeminiTurns'
  | 'validateAnthropicTurns'
  | 'stripDanglingAnthropicToolUses'
  | 'limitHistoryTurns'
  | (string & {})

/** One change a rule made, returned with `report: true`. */
export interface Change {
  /** The rule that made it. */
  rule: ChangeRule
  /**
   * Where, in terms of the *input*: `messages[3]`, `messages[3].content[1]`, `messages[3].content`
   * (a string content), `messages[new]` / `messages[3].content[new]` (something a rule created).
   */
  path: string
  /** A short human-readable description. */
  detail: string
}

/**
 * The part of a pi-coding-agent `SessionManager` the functions use. `getEntries()` is read for
 * custom entries `{type: "custom", customType, data}` (`model-snapshot`,
 * `google-turn-ordering-bootstrap`); new entries are written with `appendCustomEntry(customType, data)`.
 * In OpenClaw 2026.9.6 mode the model snapshots are read from `getBranch()` (the current branch)
 * when the manager has it, as that release does. A `getEntries` or `getBranch` that throws counts
 * as an empty session; an `appendCustomEntry` that throws is ignored.
 */
export interface SessionManagerLike {
  getEntries(): readonly unknown[]
  getBranch?(): readonly unknown[]
  appendCustomEntry(customType: string, data: unknown): unknown
}

/** A warning sink, called with the text OpenClaw would log. */
export type WarnFn = (message: string) => void

// ---------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------

/** Options of the tool-use/result pairing repair. */
export interface ToolUseResultPairingOptions {
  /**
   * Keep the matched results of an assistant turn with `stopReason` `error` or `aborted` (they are
   * dropped otherwise). Such a turn never gets synthetic results. Default `false`.
   */
  preserveErroredAssistantResults?: boolean
  /**
   * Text of the synthetic error result inserted for an unanswered call. Default (differs from
   * OpenClaw's `[openclaw] missing tool result…`): "Tool result missing from session history; a
   * synthetic error result was inserted to repair the transcript."
   */
  syntheticToolResultText?: string
}

/** Options of `repairToolUseResultPairing`. */
export interface RepairToolUseResultPairingOptions extends ToolUseResultPairingOptions {
  /** Also return `changes`. */
  report?: boolean
}

/** What `repairToolUseResultPairing` returns. */
export interface ToolUseResultPairingRepair<T = AgentMessage> {
  /** The repaired transcript; the input array itself when nothing changed. */
  messages: Array<T | ToolResultMessage>
  /** The synthetic results inserted (the same objects as in `messages`). */
  added: ToolResultMessage[]
  /** Results dropped because their id was already answered earlier in the transcript. */
  droppedDuplicateCount: number
  /** Results dropped because no call of the preceding assistant turn matches them. */
  droppedOrphanCount: number
  /** `true` exactly when `messages` differs from the input (OpenClaw also sets it for some unchanged inputs). */
  moved: boolean
}

/** Options of `sanitizeToolCallInputs`. */
export interface ToolCallInputsOptions {
  /**
   * Tool names the model may call (any iterable: array, Set). Compared after trimming and
   * lowercasing; empty entries are ignored, and an empty list means no allowlist.
   */
  allowedToolNames?: Iterable<string>
}

/** Options of `repairToolCallInputs`. */
export interface RepairToolCallInputsOptions extends ToolCallInputsOptions {
  /** Also return `changes`. */
  report?: boolean
}

/** What `repairToolCallInputs` returns. */
export interface ToolCallInputsRepair<T = AgentMessage> {
  /** The repaired transcript; the input array itself when nothing changed. */
  messages: T[]
  /** Tool-call blocks dropped. */
  droppedToolCalls: number
  /** Assistant messages removed because dropping their calls left them empty. */
  droppedAssistantMessages: number
}

/** Options of `sanitizeSessionMessagesImages` (the image pass). */
export interface SanitizeImagesOptions {
  /** Default `"full"`. */
  sanitizeMode?: SanitizeMode
  /** Rewrite tool-call ids first (in any mode). Default `false`. */
  sanitizeToolCallIds?: boolean
  /** Mode of that rewrite. Default `"strict"`. */
  toolCallIdMode?: ToolCallIdMode
  /** Leave thought signatures alone, and keep empty text in turns that have thinking. Default `false`. */
  preserveSignatures?: boolean
  /** Gemini thought-signature options used in `full` mode. Default: only `msg_…` snake-case signatures go. */
  sanitizeThoughtSignatures?: ThoughtSignatureOptions
  /**
   * The OpenClaw release whose image step runs (default: {@link getOpenClawVersion}). `'2026.9.6'`:
   * a payload estimated over 10 MiB or an image over 25,000,000 pixels is refused, unpadded base64
   * is accepted, and the notes name Rastermill's errors; `'2026.3.23'`: sharp's limits and texts.
   */
  openclawVersion?: OpenClawVersion
  /** Longest image side kept without resizing, in pixels (floored, at least 1). Default 1200. */
  maxDimensionPx?: number
  /** Largest decoded image kept without re-encoding, in bytes (floored, at least 1). Default 5 MiB (5 242 880). */
  maxBytes?: number
  /**
   * Decode budget per image: an image whose pixels as decoded (width × height × bytes per pixel) would
   * take more bytes is omitted before decoding (`Input image exceeds pixel limit`); a JPEG to be shrunk
   * counts at the 1/2–1/8 scale it is decoded at. Default 256 MiB (268 435 456).
   */
  maxDecodeBytes?: number
}

/** Limits of the tool-result image helpers (OpenClaw's `ImageSanitizationLimits`). */
export interface ImageLimitsOptions {
  /** The OpenClaw release whose image step runs (see {@link SanitizeImagesOptions.openclawVersion}). */
  openclawVersion?: OpenClawVersion
  /** Longest image side kept without resizing, in pixels (floored, at least 1). Default 1200. */
  maxDimensionPx?: number
  /** Largest decoded image kept without re-encoding, in bytes (floored, at least 1). Default 5 MiB (5 242 880). */
  maxBytes?: number
  /**
   * Decode budget per image: an image whose pixels as decoded (width × height × bytes per pixel) would
   * take more bytes is omitted before decoding (`Input image exceeds pixel limit`); a JPEG to be shrunk
   * counts at the 1/2–1/8 scale it is decoded at. Default 256 MiB (268 435 456).
   */
  maxDecodeBytes?: number
}

/** What `sanitizeImageBlocks` returns. */
export interface SanitizeImageBlocksResult<B> {
  /** The blocks that are still images, in order (a new array; the input itself when it was empty). */
  images: B[]
  /** How many input blocks are gone (omitted images, and blocks that were not images). */
  dropped: number
}

/**
 * The process-wide image cache's figures (`imageCacheStats()`). The cache holds the decision
 * for each oversize or unusual image payload seen (the re-encoded JPEG's base64, or the omission
 * text), keyed by the BLAKE3 digest of the payload string and both limits, shared by every
 * function that touches images and every `worker_thread` of the process.
 */
export interface ImageCacheStats {
  /** Decisions held. */
  entries: number
  /** Bytes they are counted as: the stored strings plus a fixed ~160 bytes each. */
  bytes: number
  /** The budget in bytes; 0 means the cache is off. Default 64 MiB (67 108 864). */
  maxBytes: number
  /** Image lookups answered from the cache since the process started or the last `clearImageCache()`. */
  hits: number
  /** Image lookups that had to decode and re-encode (or reject) the image. */
  misses: number
  /** Entries dropped, least recently used first, to stay within `maxBytes`. */
  evictions: number
}

/** Options of `configureImageCache`. */
export interface ImageCacheOptions {
  /** Budget in bytes (floored); 0 turns the cache off and empties it. Default 64 MiB. */
  maxBytes: number
}

/** Parameters of `sanitizeSessionHistory`. Every field but `messages` is optional. */
export interface SanitizeSessionHistoryParams<T extends MessageLike = AgentMessage> {
  /** The stored transcript. */
  messages: readonly T[]
  /** Provider id, for the policy and the model snapshot. */
  provider?: string
  /** pi-ai API name, for the policy, the OpenAI Responses steps and the Google bootstrap marker. */
  modelApi?: string
  /** Model id, for the policy and the model snapshot. */
  modelId?: string
  /** Allowlist for malformed-call dropping; see {@link ToolCallInputsOptions.allowedToolNames}. */
  allowedToolNames?: Iterable<string>
  /** Overrides (field by field) the policy resolved from provider/modelApi/modelId. */
  policy?: TranscriptPolicyOverride
  /** The resolved model's fields the 2026.9.6 policy reads; see {@link TranscriptPolicyModel}. */
  model?: TranscriptPolicyModel
  /**
   * Reads and records the `model-snapshot` and `google-turn-ordering-bootstrap` custom entries.
   * Without it, no entries are written.
   */
  sessionManager?: SessionManagerLike
  /**
   * The session this history belongs to. When a call has the same `sessionId` and options as a
   * recent call and its `messages` start with that call's messages (the same objects, `===`: the
   * agent appended), the pass re-runs only what follows the last point the previous call proved
   * stable; the result is the full pass's. Sessions are remembered in a bounded LRU (see
   * {@link configureTranscriptSessions}).
   */
  sessionId?: string
  /** `false`: always the full pass, even with a `sessionId`. Default `true`. */
  incremental?: boolean
  /**
   * The OpenClaw release whose pass to reproduce (default: {@link getOpenClawVersion}, `'2026.9.6'`
   * unless changed). Both passes are incremental with a `sessionId`.
   */
  openclawVersion?: OpenClawVersion
  /** See {@link ToolUseResultPairingOptions.preserveErroredAssistantResults}. */
  preserveErroredAssistantResults?: boolean
  /** See {@link ToolUseResultPairingOptions.syntheticToolResultText}. */
  syntheticToolResultText?: string
  /** See {@link SanitizeImagesOptions.maxDimensionPx}. */
  maxDimensionPx?: number
  /** See {@link SanitizeImagesOptions.maxBytes}. */
  maxBytes?: number
  /** `true`: return `{messages, changes}` instead of the array. */
  report?: boolean
  /** Warning sink (the pass currently reports none; reserved). */
  warn?: WarnFn
}

/** The element type of `sanitizeSessionHistory`'s result: the caller's messages plus the bootstrap turn and synthetic results it may insert. */
export type SanitizedMessage<T> = T | UserMessage | ToolResultMessage

/** What `sanitizeSessionHistory` returns with `report: true`. */
export interface SanitizeSessionHistoryReport<T = AgentMessage> {
  /** Always a new array. */
  messages: Array<SanitizedMessage<T>>
  /** Every change, in the order the steps made them. */
  changes: Change[]
}

/** Parameters of `applyGoogleTurnOrderingFix`. */
export interface GoogleTurnOrderingFixParams<T extends MessageLike = AgentMessage> {
  messages: readonly T[]
  /** Only `google-generative-ai` and `google-gemini-cli` are fixed; anything else is a no-op. */
  modelApi?: string
  /** Only used in the warning text. */
  sessionId?: string
  /** Where the once-per-session `google-turn-ordering-bootstrap` marker is read and written. */
  sessionManager?: SessionManagerLike
  /** Called once, the first time a session gets the bootstrap (needs `sessionManager`). */
  warn?: WarnFn
}

/** What `applyGoogleTurnOrderingFix` returns. */
export interface GoogleTurnOrderingFix<T = AgentMessage> {
  /** The input array itself when nothing was prepended. */
  messages: Array<T | UserMessage>
  didPrepend: boolean
}

/** Options of `repairSessionFile`. */
export interface RepairSessionFileOptions {
  /** Keep the original as `<file>.bak-<pid>-<ms>` before rewriting. Default `true`. */
  backup?: boolean
  /**
   * Write nothing: report what a real run would drop (`repaired: false`, `reason: 'dry run'`
   * when there are lines to drop). Default `false`.
   */
  dryRun?: boolean
  /** Called with `session file repaired: dropped N malformed line(s) (<name>)` or `session file repair skipped: <reason> (<name>)`. */
  warn?: WarnFn
}

/** What `repairSessionFile` returns (OpenClaw `repairSessionFileIfNeeded`'s result). */
export interface SessionFileRepairResult {
  /** Whether the file was rewritten. */
  repaired: boolean
  /** Lines that were not valid JSON. */
  droppedLines: number
  /** The 1-based numbers of those lines (lines counted by `\n`); present when `droppedLines > 0`. */
  droppedLineNumbers?: number[]
  /** Present when a backup was written. */
  backupPath?: string
  /**
   * Why nothing was rewritten, or why the rewrite failed: `missing session file`,
   * `failed to read session file: <error>`, `empty session file`, `invalid session header`,
   * `repair failed: <error>`, or `dry run` when `dryRun` kept lines from being dropped.
   */
  reason?: string
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

/**
 * Resolves which hygiene steps a provider/API/model needs (OpenClaw 2026.3.23-2
 * `resolveTranscriptPolicy`, bundled plugin capabilities included). Pure; works for any provider.
 * @returns a new policy object.
 */
export declare function resolveTranscriptPolicy(params: TranscriptPolicyParams & { openclawVersion: '2026.3.23' }): TranscriptPolicy
export declare function resolveTranscriptPolicy(params: TranscriptPolicyParams & { openclawVersion: '2026.9.6' }): TranscriptPolicy2026_9
/** Without `openclawVersion`: the process default's shape ({@link getOpenClawVersion}; `'2026.9.6'` unless changed). */
export declare function resolveTranscriptPolicy(params?: TranscriptPolicyParams): TranscriptPolicy | TranscriptPolicy2026_9

/**
 * The whole replay-time pass, in OpenClaw's order: inter-session markers, assistant content
 * canonicalisation, the image pass (tool-call ids, thought signatures, empty text, images), thinking
 * blocks (policy), malformed tool calls, tool-use/result pairing, tool-result `details`, usage
 * snapshots, OpenAI Responses reasoning downgrades (`openai-responses`, `openai-codex-responses`),
 * the model-snapshot entry, and the Google bootstrap turn (policy). Needed for every provider;
 * what runs depends on the policy. The caller still runs `validateGeminiTurns` /
 * `validateAnthropicTurns` (as the policy says), `limitHistoryTurns` and then
 * `sanitizeToolUseResultPairing` again.
 *
 * Differences from OpenClaw: synchronous (OpenClaw's is async); synthetic tool results use neutral
 * text (`syntheticToolResultText`) and the calling assistant's timestamp; the bootstrap turn takes
 * the first message's timestamp; `report: true` returns `{messages, changes}`.
 * @returns always a new array (or `{messages, changes}` with `report: true`).
 */
export declare function sanitizeSessionHistory<T extends MessageLike = AgentMessage>(
  params: SanitizeSessionHistoryParams<T> & { report: true },
): SanitizeSessionHistoryReport<T>
export declare function sanitizeSessionHistory<T extends MessageLike = AgentMessage>(
  params: SanitizeSessionHistoryParams<T> & { report?: false },
): Array<SanitizedMessage<T>>
export declare function sanitizeSessionHistory<T extends MessageLike = AgentMessage>(
  params: SanitizeSessionHistoryParams<T>,
): Array<SanitizedMessage<T>> | SanitizeSessionHistoryReport<T>

/** What {@link createTranscriptSanitizer} returns. */
export interface TranscriptSanitizer {
  /**
   * `sanitizeSessionHistory({...params, messages})`, incremental when `messages` starts with the
   * previous call's messages (`===`). Always a new array (`{messages, changes}` with `report: true`,
   * which always takes the full pass).
   */
  sanitize<T extends MessageLike = AgentMessage>(messages: readonly T[]): Array<SanitizedMessage<T>>
}

/**
 * The incremental `sanitizeSessionHistory` for a caller without a `sessionId`: `params` (all but
 * `messages`) are checked and fixed once; each `.sanitize(messages)` gives what the full pass gives.
 * It holds the last input and output arrays (references), the ids of the stable prefix and, with a
 * `sessionManager`, the references of the entries it read, until it is garbage-collected.
 */
export declare function createTranscriptSanitizer(
  params?: Omit<SanitizeSessionHistoryParams, 'messages'>,
): TranscriptSanitizer

/** Settings of the sessions `sanitizeSessionHistory` remembers by `sessionId`. */
export interface TranscriptSessionsOptions {
  /** How many sessions are remembered, least recently used dropped first (0: none). Default 32. */
  maxSessions?: number
}

/** Sets (any field given) and returns the settings, with the number of sessions remembered now. */
export declare function configureTranscriptSessions(
  options?: TranscriptSessionsOptions,
): { maxSessions: number; sessions: number }

/**
 * One tool-call id in a provider's alphabet (OpenClaw `sanitizeToolCallId`). `strict` (default;
 * Google, Anthropic, OpenAI-compatible): non-alphanumerics removed, `"sanitizedtoolid"` if nothing
 * is left. `strict9` (Mistral): 9 alphanumerics, hashed when shorter. A missing or non-string id
 * gives `"defaulttoolid"` / `"defaultid"`. Throws an `Error` for another `mode`.
 * @returns the sanitised id.
 */
export declare function sanitizeToolCallId(id: string | null | undefined, mode?: ToolCallIdMode): string

/**
 * Whether `id` is already valid for the mode: `strict` = `^[a-zA-Z0-9]+$`, `strict9` =
 * `^[a-zA-Z0-9]{9}$`. `false` for a non-string. Throws an `Error` for another `mode`.
 */
export declare function isValidCloudCodeAssistToolId(id: string | null | undefined, mode?: ToolCallIdMode): boolean

/**
 * Rewrites every tool-call id (assistant `toolCall`/`toolUse`/`functionCall` blocks) and the
 * matching `toolCallId`/`toolUseId` of results into the mode's alphabet, keeping them unique and
 * paired (occurrence-aware; orphan results get `…toolresultN` ids). Google, Anthropic and
 * OpenAI-compatible APIs need `strict`, Mistral `strict9`. An unrecognised `mode` counts as `strict`.
 * @returns the input array itself when every id is already valid and unique.
 */
export declare function sanitizeToolCallIdsForCloudCodeAssist<T extends MessageLike>(messages: readonly T[], mode?: ToolCallIdMode): T[]

/**
 * Drops malformed tool calls from assistant turns: no `input`/`arguments`, a blank id, a name that
 * is blank, over 64 chars or not `[A-Za-z0-9_-]+`, or (with an allowlist) a name not in it.
 * Kept calls get their name trimmed; `sessions_spawn` attachments get their `content` redacted.
 * An assistant left empty by the drop is removed. Every provider needs it.
 * @returns the input array itself when nothing changed.
 */
export declare function sanitizeToolCallInputs<T extends MessageLike>(messages: readonly T[], options?: ToolCallInputsOptions): T[]

/**
 * `sanitizeToolCallInputs` with counts (OpenClaw `repairToolCallInputs`).
 * @returns `{messages, droppedToolCalls, droppedAssistantMessages}`, plus `changes` with `report: true`;
 * `messages` is the input array itself when nothing changed.
 */
export declare function repairToolCallInputs<T extends MessageLike>(
  messages: readonly T[],
  options: RepairToolCallInputsOptions & { report: true },
): ToolCallInputsRepair<T> & { changes: Change[] }
export declare function repairToolCallInputs<T extends MessageLike>(messages: readonly T[], options?: RepairToolCallInputsOptions): ToolCallInputsRepair<T>

/**
 * Repairs tool-use/result pairing: each call's first result is moved right after its assistant
 * turn, duplicates (over the whole transcript) and orphans are dropped, blank result names are
 * filled from the call, and an unanswered call gets a synthetic error result (not after an
 * `error`/`aborted` turn). Anthropic, Google, MiniMax and OpenAI's newer APIs reject unpaired calls.
 *
 * Differences from OpenClaw: the synthetic text is neutral (`syntheticToolResultText`) and its
 * timestamp is the calling assistant's (0 when it has none); `moved` is `true` only when the output
 * differs from the input.
 * @returns `{messages, added, droppedDuplicateCount, droppedOrphanCount, moved}`, plus `changes`
 * with `report: true`; `messages` is the input array itself when nothing changed.
 */
export declare function repairToolUseResultPairing<T extends MessageLike>(
  messages: readonly T[],
  options: RepairToolUseResultPairingOptions & { report: true },
): ToolUseResultPairingRepair<T> & { changes: Change[] }
export declare function repairToolUseResultPairing<T extends MessageLike>(
  messages: readonly T[],
  options?: RepairToolUseResultPairingOptions,
): ToolUseResultPairingRepair<T>

/**
 * `repairToolUseResultPairing(messages, options).messages`.
 * @returns the input array itself when nothing changed.
 */
export declare function sanitizeToolUseResultPairing<T extends MessageLike>(
  messages: readonly T[],
  options?: ToolUseResultPairingOptions,
): Array<T | ToolResultMessage>

/**
 * Merges consecutive assistant turns (Gemini rejects two model turns in a row): the earlier turn
 * with both contents concatenated and `usage`/`stopReason`/`errorMessage` from the later one when
 * truthy. A `toolResult` in between prevents the merge. Policy `validateGeminiTurns` (Google APIs,
 * strict OpenAI-compatible providers). String content becomes a text block instead of being lost.
 * @returns the input array itself when nothing was merged.
 */
export declare function validateGeminiTurns<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Strips dangling Anthropic-native `toolUse` blocks (an assistant immediately followed by a user
 * without their `toolResult` blocks; `[tool calls omitted]` when nothing is left), then merges
 * consecutive user turns with `mergeConsecutiveUserTurns`. Policy `validateAnthropicTurns`
 * (Anthropic family, strict OpenAI-compatible providers). Unlike OpenClaw, string-content user
 * turns merge without losing text.
 *
 * With `openclawVersion: '2026.9.6'`, as that release: consecutive assistant turns are merged
 * first (as `validateGeminiTurns` merges them); every call shape (`toolCall`, `toolUse`,
 * `functionCall`) is checked against every result before the next assistant turn (`toolResult`
 * and `tool` messages and blocks), a turn left with nothing becoming `[tool calls omitted]` (empty
 * when it was aborted or errored) and a turn with reasoning kept whole only when every call is
 * answered; `mergeConsecutiveUserTurns: false` leaves user turns apart.
 * @returns the input array itself when nothing changed.
 */
export declare function validateAnthropicTurns<T extends MessageLike>(messages: readonly T[], options?: { openclawVersion?: OpenClawVersion; mergeConsecutiveUserTurns?: boolean }): T[]

/**
 * The merge of two consecutive user turns: `current`'s fields, the two contents concatenated
 * (a string content becomes one text block, so no text is lost, unlike OpenClaw's `content: []`),
 * and `timestamp` = `current.timestamp ?? previous.timestamp`. Roles are not checked.
 * @returns a new message.
 */
export declare function mergeConsecutiveUserTurns(previous: UserMessage, current: UserMessage): UserMessage

/**
 * Prepends `{role: "user", content: "(session bootstrap)", timestamp}` when the first message is an
 * assistant (Gemini rejects a model turn first). The timestamp is the first message's (0 without
 * one), not the clock as in OpenClaw. Policy `applyGoogleTurnOrdering`.
 * @returns the input array itself when nothing was prepended.
 */
export declare function sanitizeGoogleTurnOrdering<T extends MessageLike>(messages: readonly T[]): Array<T | UserMessage>

/**
 * `sanitizeGoogleTurnOrdering` for Google APIs only (`google-generative-ai`, `google-gemini-cli`),
 * with OpenClaw's session bookkeeping: the first time a session gets the bootstrap, the
 * `google-turn-ordering-bootstrap` custom entry `{timestamp}` is appended and `warn` is called.
 * @returns `{messages, didPrepend}`; `messages` is the input array itself when nothing was prepended.
 */
export declare function applyGoogleTurnOrderingFix<T extends MessageLike>(params: GoogleTurnOrderingFixParams<T>): GoogleTurnOrderingFix<T>

/**
 * Deletes foreign Gemini thought signatures from the blocks of one content array; see
 * {@link ThoughtSignatureOptions}. The image pass applies it to non-error assistant turns in `full`
 * mode unless the policy preserves signatures.
 * @returns the input array itself when nothing was deleted; a non-array `content` is returned as is.
 */
export declare function stripThoughtSignatures<T>(content: readonly T[], options?: ThoughtSignatureOptions): T[]
export declare function stripThoughtSignatures<T>(content: T, options?: ThoughtSignatureOptions): T

/**
 * Removes assistant `thinking` blocks (`redacted_thinking` stays); a turn left empty gets
 * `[{type: "text", text: ""}]`. Policy `dropThinkingBlocks` (Claude via anthropic, amazon-bedrock,
 * anthropic-vertex, github-copilot).
 * @returns the input array itself when nothing was dropped.
 */
export declare function dropThinkingBlocks<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Drops OpenAI Responses reasoning (`thinking` blocks whose signature is an `rs_…` reasoning item)
 * not followed by a non-thinking block, and assistant turns left empty. For `openai-responses` and
 * `openai-codex-responses`.
 * @returns always a new array (as in OpenClaw).
 */
export declare function downgradeOpenAIReasoningBlocks<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Rewrites `call_…|fc_…` tool-call ids seen before any reasoning block to `call_…` (and the ids of
 * the results right after), so an `fc_` item is not replayed without its reasoning item. For
 * `openai-responses` and `openai-codex-responses`.
 * @returns the input array itself when nothing changed.
 */
export declare function downgradeOpenAIFunctionCallReasoningPairs<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Deletes the `details` key of every `toolResult` message (UI data never meant for the model).
 * Every provider.
 * @returns the input array itself when nothing changed.
 */
export declare function stripToolResultDetails<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * The image pass (OpenClaw `sanitizeSessionMessagesImages`): optionally rewrites tool-call ids,
 * then sanitises images in user, toolResult and assistant content (over `maxDimensionPx` or
 * `maxBytes`: re-encoded as JPEG; empty, invalid or undecodable: replaced by a
 * `[<label>] omitted …` text block); a missing toolResult content becomes `[]`. In `full` mode,
 * non-error assistant turns also lose foreign thought signatures and blank text blocks, and are
 * dropped when left empty. Every provider (`images-only` for OpenAI and most OpenAI-compatible ones).
 * Synchronous, unlike OpenClaw's.
 * @param label prefix of the replacement texts; default `"session:history"`.
 * @returns always a new array (as in OpenClaw).
 */
export declare function sanitizeSessionMessagesImages<T extends MessageLike>(
  messages: readonly T[],
  label?: string,
  options?: SanitizeImagesOptions,
): T[]

/**
 * OpenClaw's `sanitizeContentBlocksImages` (tool-images.ts): the image step of
 * {@link sanitizeSessionMessagesImages} on one block list, e.g. a tool result's content. Images
 * over the limits are re-encoded as JPEG, empty, invalid or undecodable ones become a
 * `[<label>] omitted …` text block, a mislabelled `mimeType` is corrected; other blocks pass.
 * Synchronous, unlike OpenClaw's. Uses the image cache.
 * @param label prefix of the replacement texts, e.g. `"read:/tmp/shot.png"`.
 * @returns always a new array; unchanged blocks are the same objects (OpenClaw copies every image block).
 * @throws TypeError when `blocks` is not an array or `label` not a string.
 */
export declare function sanitizeContentBlocksImages<B>(
  blocks: readonly B[],
  label: string,
  options?: ImageLimitsOptions,
): (B | TextContent)[]

/**
 * OpenClaw's `sanitizeImageBlocks`: {@link sanitizeContentBlocksImages}, then only the blocks
 * that are still image blocks (string `data` and `mimeType`).
 * @throws TypeError when `images` is not an array or `label` not a string.
 */
export declare function sanitizeImageBlocks<B extends ImageContent>(
  images: readonly B[],
  label: string,
  options?: ImageLimitsOptions,
): SanitizeImageBlocksResult<B>

/**
 * OpenClaw's `sanitizeToolResultImages`: {@link sanitizeContentBlocksImages} on
 * `result.content`.
 * @returns `result` itself when no block changed (or `content` is not an array), else a shallow
 * copy with the new `content` (OpenClaw copies whenever there is an image or text block).
 * @throws TypeError when `result` is not an object or `label` not a string.
 */
export declare function sanitizeToolResultImages<R extends { content?: unknown }>(
  result: R,
  label: string,
  options?: ImageLimitsOptions,
): R

/** The image cache's current figures. */
export declare function imageCacheStats(): ImageCacheStats

/** Empties the image cache and resets its counters (the budget stays). */
export declare function clearImageCache(): void

/**
 * Sets the image cache's budget, evicting least recently used entries down to it; `maxBytes: 0`
 * turns the cache off. Process-wide: it applies to every worker thread.
 * @returns the figures after the change.
 * @throws TypeError when `maxBytes` is not a finite number ≥ 0.
 */
export declare function configureImageCache(options: ImageCacheOptions): ImageCacheStats

/**
 * Keeps the suffix starting at the `limit`-th user message from the end (OpenClaw's DM history
 * limit). A missing, zero, negative or NaN limit keeps everything. Provider-independent; run
 * `sanitizeToolUseResultPairing` afterwards, as cutting can orphan results.
 * With `openclawVersion: '2026.9.6'`: the messages before the first user or assistant turn
 * (compaction summaries) always stay, nothing is cut until there are more than ⌈1.5·limit⌉ user
 * turns, and then whole batches go at once (the kept prefix stays cacheable between calls).
 * @returns the input array itself when nothing is cut; messages are never edited.
 */
export declare function limitHistoryTurns<T extends MessageLike>(messages: readonly T[], limit?: number, options?: { openclawVersion?: OpenClawVersion }): T[]

/**
 * Prefixes the text of user turns with `provenance.kind === "inter_session"` with
 * `[Inter-session message] sourceSession=… sourceChannel=… sourceTool=…` and a newline, so the
 * model does not take forwarded text for an end-user instruction. Every provider.
 * @returns the input array itself when nothing changed.
 */
export declare function annotateInterSessionUserMessages<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Zeroes assistant usage recorded before the latest `compactionSummary`, then normalises every
 * assistant's `usage` to a {@link Usage} snapshot (`input_tokens`, `prompt_tokens`,
 * `cache_read_input_tokens`, … aliases accepted; missing or invalid usage → zero snapshot). This
 * covers both OpenClaw steps, `stripStaleAssistantUsageBeforeLatestCompaction` and
 * `ensureAssistantUsageSnapshots`. Every provider.
 * @returns the input array itself when every assistant already has a normalised, fresh usage.
 */
export declare function ensureAssistantUsageSnapshots<T extends MessageLike>(messages: readonly T[]): T[]

/**
 * Drops the lines of a JSONL session file that are not valid JSON (OpenClaw
 * `repairSessionFileIfNeeded`), after checking the first valid entry is a
 * `{type: "session", id}` header. The original goes to a backup, the cleaned file is written to a
 * temporary file and renamed over it. Unlike OpenClaw, valid lines are written back byte for byte
 * (not re-serialised) and a file with no invalid line is never rewritten. Synchronous file I/O.
 * @returns `{repaired, droppedLines, backupPath?, reason?}`; never throws for I/O errors.
 */
export declare function repairSessionFile(path: string, options?: RepairSessionFileOptions): SessionFileRepairResult

// ---- response cleaning ----

/** What to do with tool-call markup or reasoning in a reply. */
export type CleanMode = 'extract' | 'strip' | 'keep'

/**
 * The text tool-call formats {@link cleanResponse} reads. `llama3_json`, `pythonic`,
 * `llama4_pythonic`, `xlam` and `olmo3` are plain JSON or Python: `'auto'` reads them only when
 * `options.model` names their model (e.g. `meta-llama/Llama-3.3-70B-Instruct`), never from the text alone.
 */
export type ResponseFormat =
  | 'hermes'
  | 'qwen3_coder'
  | 'seed_oss'
  | 'glm45'
  | 'glm47'
  | 'minimax_m1'
  | 'minimax_m2'
  | 'deepseek_v3'
  | 'deepseek_v31'
  | 'deepseek_v32'
  | 'deepseek_v4'
  | 'kimi_k2'
  | 'llama3_json'
  | 'pythonic'
  | 'llama4_pythonic'
  | 'mistral'
  | 'gpt_oss'
  | 'step3'
  | 'hunyuan_a13b'
  | 'ernie45'
  | 'longcat'
  | 'internlm2'
  | 'phi4_mini'
  | 'granite'
  | 'granite_20b_fc'
  | 'xlam'
  | 'jamba'
  | 'olmo3'
  | 'gigachat3'
  | 'gemma4'
  | 'bracket_calls'
  | 'command_r'
  | 'minimax_m3'
  | 'apertus'
  | 'nemotron_v2'
  | 'doubao'
  | 'functionary_v31'
  | 'functionary_v32'
  | 'minicpm5'
  | 'kimi_k3'
  | 'tool_json'
  | 'named_tool_call'
  | 'attr_tool_call'
  | 'functiongemma'

/** An OpenAI function tool definition, used to type argument values. */
export interface OpenAIFunctionTool {
  type?: 'function'
  function: { name: string; description?: string; parameters?: Record<string, unknown> }
}

/** Options of {@link cleanResponse}. */
export interface CleanResponseOptions {
  /**
   * `'auto'` (default) detects formats whose markers are unambiguous (special tokens, fixed tags),
   * or names one format (then only that format is read).
   */
  format?: 'auto' | ResponseFormat
  /**
   * `"provider/model-id"`; informs `auto`: enables the plain JSON/Python formats of that model
   * (Llama 3 → `llama3_json`, Llama 4 → `llama4_pythonic`, LFM2/ToolACE → `pythonic`, xLAM, OLMo-3),
   * picks between formats with the same markers (ERNIE and Granite for `<tool_call>{`, Jamba for
   * `<tool_calls>[`), Qwen3-Coder's unwrapped `<function=…>` form, and prose reasoning (Granite's
   * `Here is my thought process:`, gpt-oss with its Harmony markers stripped).
   */
  model?: string
  /**
   * OpenAI tools: their parameter schemas type the values of XML-style formats. Read once per
   * array while it holds the same element objects: a tool changed in place is not seen (pass a
   * new object or array).
   */
  tools?: readonly OpenAIFunctionTool[]
  /** `'extract'` (default): calls become `toolCalls`; `'strip'`: removed; `'keep'`: left in the text. */
  toolCalls?: CleanMode
  /**
   * `'extract'` (default): reasoning (`<think>`, `<seed:think>`, `[THINK]`, gpt-oss's analysis
   * channel, …) becomes `reasoning`; `'strip'`: removed; `'keep'`: left.
   */
  thinking?: CleanMode
  /**
   * Whether your prompt left the reply inside reasoning (the chat template ended it with
   * `<think>`). `true`: the reply is reasoning up to the first `</think>` (streamed as reasoning at
   * once, nothing held back). `false`: a lone `</think>` never ends reasoning. Omitted: the
   * model's template decides (the README's table); with neither `model` nor `format`, a
   * `</think>` alone on its line within the first 1,024 bytes ends reasoning begun in the prompt
   * (a stream holds back at most that much of the reply's start).
   */
  reasoningOpen?: boolean
  /**
   * The calls the API already returned as structured `tool_calls` for this reply (OpenAI-shaped
   * `{id?, type?, function: {name, arguments}}` or plain `{name, arguments}`; `arguments` a JSON
   * string or object). Some servers also leave their markup in the text: a call read from the text
   * with the same name and equal arguments is removed from `content` and not returned again (each
   * structured call matches at most one). Give the same list to `ResponseStreamCleaner`.
   */
  structuredToolCalls?: readonly StructuredToolCall[]
}

/** A call the API returned as structured data (see {@link CleanResponseOptions.structuredToolCalls}). */
export type StructuredToolCall =
  | { id?: string; type?: 'function'; function: { name: string; arguments?: string | Record<string, unknown> } }
  | { name: string; arguments?: string | Record<string, unknown> }

/** A tool call in OpenAI's `tool_calls` shape; `arguments` is a JSON string. */
export interface OpenAIToolCall {
  /**
   * Deterministic: `call_<index>_<8 hex>`; Kimi-K2 keeps its own `functions.NAME:IDX`; Mistral
   * gets 9 letters and digits (what its templates accept), or the model's own id of that shape.
   */
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** The result of {@link cleanResponse}. */
export interface CleanedResponse {
  /** The text to show the user, with tool-call markup (and reasoning, unless kept) removed. */
  content: string
  toolCalls: OpenAIToolCall[]
  reasoning: string
  /** The format found or forced, or `null` when the reply had no tool-call markup. */
  format: ResponseFormat | null
  /** What could not be cleaned as expected: truncated calls, malformed JSON arguments (kept as text). */
  problems: string[]
  /** The stable kind of each problem, in the same order (match on these, not on the wording). */
  problemKinds: ProblemKind[]
}

/** The stable kind of a reported problem. */
export type ProblemKind =
  | 'truncated'
  | 'bad-arguments'
  | 'unreadable-block'
  | 'skipped-call'
  | 'reasoning-unclosed'
  | 'unsupported-format'
  | 'overlap'
  | 'kept-as-code'
  | 'call-in-reasoning'
  | 'invented-result'
  | 'invented-turn'
  | 'other'

/**
 * Recovers tool calls that an open-weight model (Qwen, GLM, MiniMax, DeepSeek, Kimi, Llama, Mistral,
 * gpt-oss …) wrote into its reply as text, turns them into OpenAI tool calls, and separates reasoning
 * from the visible text. Nothing inside reasoning is taken for a call; text around calls is kept.
 * Whole replies, every format in {@link ResponseFormat}; {@link ResponseStreamCleaner} gives the
 * same result for a reply that arrives in deltas. Lone UTF-16 surrogates are kept exactly.
 * @throws TypeError when `content` is not a string or an option has the wrong type.
 */
export declare function cleanResponse(content: string, options?: CleanResponseOptions): CleanedResponse

// ---- streamed response cleaning ----

/** What {@link ResponseStreamCleaner.push} returns for one delta. */
export interface ResponseStreamChunk {
  /** Visible text that is safe to show now (it can no longer be part of markup). */
  content: string
  /**
   * Reasoning text that came with this delta. Pieces concatenate as they are: each block is
   * trimmed, and a later block starts with the blank line (`"\n\n"`) that separates it from the
   * one before, exactly as `cleanResponse(...).reasoning` joins them.
   */
  reasoning: string
  /** The tool calls this delta completed, in order, with the ids `cleanResponse` gives them. */
  toolCalls: OpenAIToolCall[]
}

/** What {@link ResponseStreamCleaner.finish} returns: the rest, the format and every problem. */
export interface ResponseStreamEnd extends ResponseStreamChunk {
  /** The format found or forced, or `null` (as `cleanResponse(whole).format`). */
  format: ResponseFormat | null
  /** Every problem met in the whole reply (as `cleanResponse(whole).problems`). */
  problems: string[]
  /** The stable kind of each problem (as `cleanResponse(whole).problemKinds`). */
  problemKinds: ProblemKind[]
}

/**
 * Cleans a reply delta by delta. For any chunking of a reply, the `content` pieces of every
 * `push` plus `finish` concatenate to `cleanResponse(whole, options).content`, likewise
 * `reasoning`, and the `toolCalls` in order equal `cleanResponse(whole, options).toolCalls`.
 *
 * Held back until known: a partial marker at the end of a delta (`"<minimax:tool_c"`), a whole
 * call block until its closing token (its calls then come with that delta; a block never closed is
 * flushed by `finish`), whitespace next to removed markup (see the whitespace rule in
 * docs/API.md), a high surrogate at the end of a delta (rejoined with its low half; lone surrogates
 * are kept exactly, as `cleanResponse` keeps them), and, when the
 * model or format is one that always reasons without writing the opening tag (DeepSeek-R1 /
 * `deepseek-reasoner`, MiniMax-M2, Step-3, Seed-OSS, ERNIE / Kimi thinking models), the reply's
 * start until a reasoning tag or the end says whether it was reasoning. Formats read from plain JSON or Python (`llama3_json`, `pythonic`,
 * `llama4_pythonic`, `xlam`, `olmo3`, and `granite` / `gpt_oss` when named) come out at `finish`.
 * Total work is linear in the reply's length; Rust holds the state, one native call per `push`.
 */
export declare class ResponseStreamCleaner {
  /** @throws TypeError when `options` is not an object or an option has the wrong type. */
  constructor(options?: CleanResponseOptions)
  /**
   * Feeds one delta.
   * @throws TypeError when `delta` is not a string; Error after {@link ResponseStreamCleaner.finish}.
   */
  push(delta: string): ResponseStreamChunk
  /**
   * Ends the reply and returns everything still held back.
   * @throws Error when called a second time.
   */
  finish(): ResponseStreamEnd
}
// ---- outbound text scrubbers (OpenClaw) ----

/** Options of {@link stripReasoningTagsFromText} and {@link stripThinkingTagsFromText}. */
export interface ReasoningTagOptions {
  /** What an opening tag that is never closed does: `'strict'` (default) drops the rest of the text, `'preserve'` keeps it. */
  mode?: 'strict' | 'preserve'
  /** Which ends of the result are trimmed: `'both'` (default), `'start'` or `'none'`. Text without any tag is returned untrimmed. */
  trim?: 'none' | 'start' | 'both'
  /**
   * `true` (default): tags are read as `cleanResponse` reads a reply — reasoning only where it
   * starts the text (a later `<think>` and its closing tag are text), a closing tag inside a
   * sentence is text, one ending its line in the first 1,024 characters ends reasoning the prompt
   * opened (what precedes it goes too) — and fences indented up to three spaces are code.
   * `false`: OpenClaw's exact bytes (every tag outside OpenClaw's code regions).
   */
  codeAware?: boolean
  /**
   * The release whose rule runs (default: {@link getOpenClawVersion}). `'2026.9.6'`: fourteen tag
   * names (`reasoning`, `internal`, `antml:*`, `mm:*` added), nesting, text before a stray closing
   * tag dropped, an unclosed opening tag with nothing visible before it shown (strict mode),
   * `<internal>` hidden in every mode, code found by a CommonMark parse, `<final>` parsed strictly.
   */
  openclawVersion?: OpenClawVersion
  /** 2026.9.6 only: `'all'` (default) or `'leading'` (only the reasoning before the first visible text goes). */
  scope?: 'all' | 'leading'
  /** 2026.9.6 only: `false` hides an unclosed block even when nothing is visible before it (for partial, still-streaming text). Default `true`. */
  recoverUnclosed?: boolean
}

/** Options of {@link stripMinimaxToolCallXml}, {@link stripModelSpecialTokens} and {@link stripDowngradedToolCallText}. */
export interface ScrubberOptions {
  /**
   * `true` (default): markup inside inline code spans and fenced blocks (found as OpenClaw finds
   * them for reasoning tags) is left as written. `false`: OpenClaw's exact bytes, code or not.
   */
  codeAware?: boolean
  /**
   * The release whose rule runs (default: {@link getOpenClawVersion}). `'2026.9.6'` protects code
   * as OpenClaw 2026.9.6 does (a CommonMark parse) and ignores `codeAware`.
   */
  openclawVersion?: OpenClawVersion
}

/**
 * OpenClaw's `stripMinimaxToolCallXml`: when the text mentions `minimax:tool_call` (any case),
 * removes every `<invoke …>…</invoke>` block (an unclosed one stays) and every
 * `<minimax:tool_call>` / `</minimax:tool_call>` tag, outside code (see {@link ScrubberOptions}).
 * With `openclawVersion: '2026.9.6'`, MiniMax's transport envelope (`]<]minimax[>[<tool_call>…`)
 * is decoded first, and code is found by a CommonMark parse.
 * No trimming. Returns the same string when nothing changes.
 * @throws TypeError when `text` is not a string or `options.codeAware` not a boolean.
 */
export declare function stripMinimaxToolCallXml(text: string, options?: ScrubberOptions): string

/**
 * An OpenClaw release whose behaviour a function reproduces: `'2026.3.23'` (openclaw 2026.3.23-2)
 * or `'2026.9.6'`. A function that takes `openclawVersion` uses {@link setOpenClawVersion}'s
 * default when the call names none.
 */
export type OpenClawVersion = '2026.3.23' | '2026.9.6'

/**
 * Sets the release every call that names no `openclawVersion` reproduces, for the whole process
 * (every worker thread included). The default is `'2026.9.6'`, the current OpenClaw release (it
 * was `'2026.3.23'` before; call `setOpenClawVersion('2026.3.23')` to keep that behaviour).
 * @throws TypeError when `version` is not one of {@link OpenClawVersion}.
 */
export declare function setOpenClawVersion(version: OpenClawVersion): void

/** The release calls that name no `openclawVersion` reproduce (see {@link setOpenClawVersion}). */
export declare function getOpenClawVersion(): OpenClawVersion


/**
 * OpenClaw's `stripModelSpecialTokens`, for leaked control tokens `<|…|>` (ASCII or full-width
 * `｜` pipes, e.g. `<|assistant|>`, `<｜begin▁of▁sentence｜>`). Tokens inside code are kept.
 * - `'2026.3.23'`: each token becomes a space; then, if any was found, runs of spaces collapse
 *   to one and the text is trimmed (see {@link ScrubberOptions} for `codeAware`).
 * - `'2026.9.6'`: each token is removed; a space is put back only between two words
 *   (`好的<|im_end|>，` → `好的，`, `done<|end|>next` → `done next`); nothing is trimmed.
 * @throws TypeError when `text` is not a string, `options.codeAware` not a boolean or
 * `options.openclawVersion` not one of {@link OpenClawVersion}.
 */
export declare function stripModelSpecialTokens(text: string, options?: ScrubberOptions): string

/**
 * OpenClaw 2026.9.6's `stripRelevantMemoriesTags`: removes `<relevant-memories>…</relevant-memories>`
 * blocks (recalled memories a model echoes; any case, `-` or `_`, attributes allowed) outside
 * Markdown code. An unclosed block hides the rest of the text; a stray closing tag goes alone.
 * @throws TypeError when `text` is not a string.
 */
export declare function stripRelevantMemoriesTags(text: string): string

/**
 * OpenClaw 2026.9.6's `stripAssistantInternalTraceLines`: removes whole lines of tool progress a
 * model repeats (`🛠️ Exec: ls`, `📖 Read: a.md`, `⚠️ 🛠️ Exec failed (exit 1)`, `tool_call: …`),
 * with their line break, outside Markdown code.
 * @throws TypeError when `text` is not a string.
 */
export declare function stripAssistantInternalTraceLines(text: string): string

/**
 * OpenClaw 2026.9.6's `stripLegacyBracketToolCallBlocks`: removes
 * `[TOOL_CALL]{tool => "name", args => …}[/TOOL_CALL]` and `[TOOL_RESULT]…[/TOOL_RESULT]` blocks
 * whose payload looks like a call or a result (an unclosed one runs to the end), outside Markdown code.
 * @throws TypeError when `text` is not a string.
 */
export declare function stripLegacyBracketToolCallBlocks(text: string): string

/** Options of {@link stripPlainTextToolCallBlocks}. */
export interface PlainTextToolCallOptions {
  /** A call that starts in Markdown code (a CommonMark parse) stays, as in OpenClaw's reply chain. Default `true`; `false` is OpenClaw's function called without options. */
  codeAware?: boolean
}

/**
 * OpenClaw 2026.9.6's `stripPlainTextToolCallBlocks`: removes tool calls a model wrote as text on
 * lines of their own — Qwen3-Coder's `<function=NAME><parameter=K>v</parameter></function>`, a
 * `[NAME]` line followed by a JSON object and `[END_TOOL_REQUEST]` or `[/NAME]`, `[tool:NAME] {…}`,
 * and OpenAI Harmony's `commentary to=NAME code {…}` — from the start of their line, with calls
 * following on the same line and one line break. A JSON payload must parse. When the text ends
 * inside what could still become a call, the rest is kept as written.
 * @throws TypeError when `text` is not a string or `options.codeAware` not a boolean.
 */
export declare function stripPlainTextToolCallBlocks(text: string, options?: PlainTextToolCallOptions): string

/**
 * OpenClaw 2026.9.6's `sanitizeAssistantVisibleText` (its delivery chain) in one native call:
 * `stripMinimaxToolCallXml`, `stripModelSpecialTokens`, `stripRelevantMemoriesTags`,
 * `stripToolCallXmlTags` (with `stripFunctionResponseAfterPluralToolCalls`),
 * `stripAssistantInternalTraceLines`, `stripLegacyBracketToolCallBlocks`,
 * `stripPlainTextToolCallBlocks`, `stripDowngradedToolCallText` and `stripReasoningTagsFromText`
 * (strict, nothing trimmed), in that order, each as in 2026.9.6; then the text is trimmed, keeping
 * a leading code block's indentation. Markup inside Markdown code stays.
 * @throws TypeError when `text` is not a string.
 */
export declare function sanitizeAssistantVisibleText(text: string): string

/** Options of `sanitizeUserFacingText`. */
export interface UserFacingTextOptions {
  /** The text is an error message: trace lines (`🛠️ Exec: ls`, `tool_call: …`) go too. Default `false`. */
  errorContext?: boolean
  /**
   * The prompt the reply answers (OpenClaw's `agentText`/`BodyForAgent`). When it carries chat
   * context (a heading such as `[Current message - respond to this]` on a line of its own,
   * outside code), every copy of the whole prompt in the reply goes, each line allowed a Markdown
   * wrapper (`> `, `- `, `## `, `1. `, indentation). Only a reply that holds a heading is searched.
   */
  conversationContext?: string
  /**
   * The reply is still arriving (call it on the text so far): a copy of the prompt that has only
   * begun at the end is cut, and so is a last line that begins a runtime-context marker.
   * Default `false`.
   */
  streaming?: boolean
}

/**
 * OpenClaw 2026.9.6's `sanitizeUserFacingText` (what a reply goes through right before a channel
 * shows it, after `sanitizeAssistantVisibleText`) in one native call: `<final>` markers, OpenClaw's
 * runtime-context blocks (`<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>` … and the legacy ones), inbound
 * metadata (context headers ending in `⟦openclaw:ctx⟧`, delivery hints, active-memory blocks, a
 * leading `[Mon 2026-09-07 10:00]` timestamp), MiniMax and tool-call XML (every plural
 * `<function_calls>` block), `(no output)` and `[tool calls omitted]` lines, trace lines (error text
 * only), legacy `[TOOL_CALL]` blocks, plain-text tool calls, leading blank lines, and a paragraph
 * that repeats the one before it. Markup inside Markdown code stays. With `conversationContext`,
 * copies of the prompt go first.
 * @throws TypeError when `text` is not a string, `options.errorContext` or `options.streaming` not
 * a boolean, or `options.conversationContext` not a string.
 */
export declare function sanitizeUserFacingText(text: string, options?: UserFacingTextOptions): string

/** Options of {@link ConversationContextStreamCleaner}. */
export interface ConversationContextStreamOptions {
  /**
   * The prompt the reply answers, as for `sanitizeUserFacingText`: when it carries chat context
   * (a heading such as `[Current message - respond to this]` on a line of its own, outside code),
   * its copies go; otherwise every delta is released as it comes.
   */
  conversationContext?: string
}

/**
 * OpenClaw 2026.9.6's prompt-echo filter for a streamed reply
 * (`createVerifiedConversationContextStreamFilter`), with this package's stream contract: for any
 * chunking, the strings `push` and `finish` return concatenate to the whole reply with every copy
 * of the prompt removed, exactly as `sanitizeUserFacingText(whole, { conversationContext })`
 * removes them (that function's other steps are not run here). OpenClaw's filter releases text
 * that a later chunk turns into a copy, and then releases nothing more; this one holds back only
 * what could still become part of a copy: lines that read as a copy begun (a line ending with the
 * prompt's first line, then the prompt's next lines, each allowed a Markdown wrapper), at most as
 * many as the prompt has lines, plus the line being written; else the end of the line being
 * written that is a start of the prompt's first line, with the Markdown wrapper before it; and a
 * trailing `\r`. Total work is linear in the reply's length for a given prompt.
 */
export declare class ConversationContextStreamCleaner {
  /** @throws TypeError when `options` is not an object or `options.conversationContext` not a string. */
  constructor(options?: ConversationContextStreamOptions)
  /**
   * Feeds one delta; returns the text it releases.
   * @throws TypeError when `delta` is not a string; Error after {@link ConversationContextStreamCleaner.finish}.
   */
  push(delta: string): string
  /**
   * Ends the reply and returns everything still held back, without the copies it completes.
   * @throws Error when called a second time.
   */
  finish(): string
}

/** A structured call made from a plain-text one by {@link promotePlainTextToolCalls}. */
export interface PromotedToolCall {
  type: 'toolCall'
  /** `call_` and 24 hex digits, derived from the text (the same reply gives the same ids; OpenClaw's are random). */
  id: string
  name: string
  /** The JSON object the model wrote, or `<parameter>` values as strings. */
  arguments: Record<string, unknown>
  /** `JSON.stringify(arguments)`. */
  partialArgs: string
}

/**
 * OpenClaw 2026.9.6's text-call promotion (what its provider streams do with a finished reply):
 * when an assistant message's text is nothing but plain-text calls (the shapes of
 * {@link stripPlainTextToolCallBlocks}, none starting in Markdown code, JSON payloads that parse)
 * to tools named in `toolNames`, returns a copy whose text blocks became `toolCall` blocks (other
 * blocks kept in place, blank text blocks dropped) and whose `stopReason` is `'toolUse'`.
 * Returns `null` otherwise: a message that already has a `toolCall` block, prose beside a call, a
 * name not offered, no `toolNames`. The input is never changed.
 * @throws TypeError when `message` is not an object or `toolNames` not an array or Set of strings.
 */
export declare function promotePlainTextToolCalls<M extends { content?: unknown }>(
  message: M,
  toolNames: readonly string[] | ReadonlySet<string>,
): (Omit<M, 'content' | 'stopReason'> & { content: unknown[]; stopReason: 'toolUse' }) | null

/** Options of {@link stripToolCallXmlTags} (OpenClaw's own names). */
export interface ToolCallXmlOptions {
  /** A `<function_calls>`/`<tool_calls>` block followed by a `<function_response>` is read like a `<tool_call>` (OpenClaw's delivery replies do this). Default `false`. */
  stripFunctionResponseAfterPluralToolCalls?: boolean
  /** Every `<function_calls>`/`<tool_calls>` block is read like a `<tool_call>` (OpenClaw's tool-progress text). Default `false`: only one with a JSON payload goes. */
  stripFunctionCallsXmlPayloads?: boolean
}

/**
 * OpenClaw 2026.9.6's `stripToolCallXmlTags`: removes tool calls written as XML:
 * `<tool_call>{json}</tool_call>`, `<function_call>`, `<function name="x">` at the start of a line
 * or sentence, namespaced `invoke` blocks, `<function_response>` echoes on their own line, stray
 * closers, when the payload starts like a call (JSON or a nested call tag; a truncated block runs
 * to the end); then unwraps standalone `<parameter>` tags. A tag followed by prose stays, and so
 * do tags in Markdown code.
 * @throws TypeError when `text` is not a string or an option not a boolean.
 */
export declare function stripToolCallXmlTags(text: string, options?: ToolCallXmlOptions): string

/**
 * OpenClaw's `stripDowngradedToolCallText`: removes Gemini's downgraded history text —
 * `[Tool Call: …]` markers with their `Arguments: …` value (balanced JSON, a string, or the rest
 * of the line), `[Tool Result for ID …]` markers with the text after them up to the next
 * `[Tool ` marker or the end, and `[Historical context: …]` markers — then trims. Markers inside
 * code are kept (see {@link ScrubberOptions}). Text without such a marker is returned as it is.
 * With `openclawVersion: '2026.9.6'`, a call removed at the start of a line takes its line break,
 * code is found by a CommonMark parse, and the trim keeps a leading code block's indentation.
 * @throws TypeError when `text` is not a string or `options.codeAware` not a boolean.
 */
export declare function stripDowngradedToolCallText(text: string, options?: ScrubberOptions): string

/**
 * OpenClaw's `stripReasoningTagsFromText`: removes `<think>`, `<thinking>`, `<thought>` and
 * `<antthinking>` blocks (tags and text, any case, with attributes) and `<final>` tags (their text
 * kept), except inside fenced or inline code; by default only reasoning that starts the text
 * (see {@link ReasoningTagOptions}, `codeAware: false` for OpenClaw's bytes).
 * @throws TypeError when `text` is not a string or an option has a value not listed.
 */
export declare function stripReasoningTagsFromText(text: string, options?: ReasoningTagOptions): string

/**
 * OpenClaw's `stripThinkingTagsFromText`: {@link stripReasoningTagsFromText} with
 * `{mode: 'strict', trim: 'both'}` (OpenClaw's takes no options; passing them here is the same as
 * calling {@link stripReasoningTagsFromText}).
 * @throws TypeError when `text` is not a string or an option has a value not listed.
 */
export declare function stripThinkingTagsFromText(text: string, options?: ReasoningTagOptions): string

// ---- seed 000's sanitizer API ----

/** Options of {@link sanitizeToolCall}. */
export interface SanitizeToolCallOptions {
  /**
   * The text returned when cleaning leaves nothing visible. Default: the seed's Chinese message
   * when CJK characters make up at least a third of the reply's words, an English one otherwise.
   * `false`: no fallback, the cleaned text is returned even when blank.
   */
  fallback?: string | false
}

/** What {@link createResponseSanitizer} cleans for one provider; each flag defaults to `true`. */
export interface ResponseSanitizerProviderConfig {
  stripToolCalls?: boolean
  stripThinkingTags?: boolean
}

/**
 * The seed's `models.sanitization` config. A model's provider (its id's first segment) is looked
 * up by its own name, then by its family's key (`glm` → `zhipu`, `qwen-portal` → `qwen`); a
 * provider not listed uses the defaults.
 */
export interface ResponseSanitizerConfig {
  /** `false` turns every method into the identity. Default `true`. */
  enabled?: boolean
  providers?: {
    minimax?: ResponseSanitizerProviderConfig
    zhipu?: ResponseSanitizerProviderConfig
    qwen?: ResponseSanitizerProviderConfig
    [provider: string]: ResponseSanitizerProviderConfig | undefined
  }
}

/** The object {@link createResponseSanitizer} returns. */
export interface ResponseSanitizer {
  /** Whether the config enables sanitising. */
  readonly enabled: boolean
  /** {@link sanitizeToolCall}, unless disabled for the model's provider. */
  sanitizeToolCall(model: string, content: string, options?: SanitizeToolCallOptions): string
  /** {@link sanitizeThinkingTags}; with `model`, only if enabled for its provider. */
  sanitizeThinkingTags(content: string, model?: string): string
  /** Both steps the provider's config enables, in one call, then the fallback when nothing visible is left. */
  sanitize(model: string, content: string, options?: SanitizeToolCallOptions): string
}

/**
 * Seed 000's `sanitizeToolCall`: removes tool-call markup from a reply, dispatching on the model
 * id's provider (`minimax`; `zhipu`/`glm`; `qwen`/`qwen-portal`; anything else) — the response
 * cleaner in strip mode (every format it knows, truncated calls included), then the seed's own
 * rules for the provider. Reasoning blocks are left for {@link sanitizeThinkingTags}. Never returns
 * a blank reply for a non-empty one: when nothing visible is left, the fallback text (see
 * {@link SanitizeToolCallOptions}) is returned, after any kept reasoning. Text without markup is
 * returned as it is.
 * @throws TypeError when `model` or `content` is not a string, or `options.fallback` is neither a non-blank string nor `false`.
 */
export declare function sanitizeToolCall(model: string, content: string, options?: SanitizeToolCallOptions): string

/**
 * Seed 000's `sanitizeThinkingTags`: removes `<think>…</think>` blocks with their text (and the
 * R1 form where only `</think>` is in the reply), then any `<think>`/`</think>` tag left (any
 * case), and trims. May return an empty string (a reply that was only reasoning).
 * @throws TypeError when `content` is not a string.
 */
export declare function sanitizeThinkingTags(content: string): string

/**
 * Seed 000's configurable sanitizer: validates `config` once and returns an object whose
 * methods apply it.
 * @throws TypeError naming the field when `config` does not have the {@link ResponseSanitizerConfig} shape.
 */
export declare function createResponseSanitizer(config?: ResponseSanitizerConfig): ResponseSanitizer

// ---- Server-side tool follow-ups (issue #5) ----

/** The wire protocol of a follow-up: `/v1/chat/completions`, `/v1/responses` or `/v1/messages`. */
export type FollowupProtocol = 'chat' | 'responses' | 'anthropic'

/** One result of a tool the gateway ran: `content` is sent as is when a string, JSON-stringified otherwise. */
export interface ServerToolResult {
  /** The id of the assistant's call this answers. */
  toolCallId: string
  /** The tool's name (informational: the follow-up names the result after its call). */
  name?: string
  content: unknown
}

/**
 * A tool of a request's `tools` list, in any protocol's shape: chat `{type: 'function', function: {name}}`,
 * Responses and Anthropic `{name, …}`, or a provider's built-in tool (`{type: 'web_search'}`). Server tools
 * are recognised by `function.name`, else `name`.
 */
export interface RequestTool {
  type?: string
  name?: string
  function?: { name: string; description?: string; parameters?: Record<string, unknown> }
}

/** A text part of a chat message's array content. */
export interface ChatTextPart {
  type: 'text'
  text: string
}

/** An image part of a chat user message: a URL or a `data:` URL. */
export interface ChatImagePart {
  type: 'image_url'
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' }
}

/** A part of a chat message's array content; other part types (`input_audio`, `file`, …) pass through. */
export type ChatContentPart = ChatTextPart | ChatImagePart | { type: string }

/** A function call in a chat assistant message's `tool_calls`; `arguments` is a JSON string. */
export interface ChatToolCall {
  id: string
  type?: 'function'
  function: { name: string; arguments: string }
}

/** A chat-completions system or developer message. */
export interface ChatSystemMessage {
  role: 'system' | 'developer'
  content: string | readonly ChatContentPart[]
  name?: string
}

/** A chat-completions user message. */
export interface ChatUserMessage {
  role: 'user'
  content: string | readonly ChatContentPart[]
  name?: string
}

/** A chat-completions assistant message with `tool_calls`; other fields (reasoning …) are kept as they are. */
export interface ChatAssistantMessage {
  role: 'assistant'
  content?: string | null | readonly ChatContentPart[]
  tool_calls?: readonly ChatToolCall[]
}

/** A chat-completions tool result; the follow-up writes `{role: 'tool', tool_call_id, name, content}` with string content. */
export interface ChatToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string | readonly ChatContentPart[]
  name?: string
}

/** The deprecated chat-completions `function` result message; passed through. */
export interface ChatFunctionMessage {
  role: 'function'
  name: string
  content: string | null
}

/** A chat-completions message. */
export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage | ChatFunctionMessage

/** A `/v1/chat/completions` request body; fields not named here (`temperature` …) are kept as they are. */
export interface ChatCompletionRequest {
  model?: string
  messages: readonly ChatMessage[]
  tools?: readonly RequestTool[]
  stream?: boolean | null
  stream_options?: unknown
  tool_choice?: unknown
  /** A gateway's canonical envelope keeps the sampling settings, `stream` and `tool_choice` here. */
  parameters?: { readonly [setting: string]: unknown }
}

/** A Responses API message item (`role` + content; `type: 'message'` may be left out in input). */
export interface ResponsesMessageItem {
  type?: 'message'
  role: 'user' | 'assistant' | 'system' | 'developer'
  /** A string, or parts such as `{type: 'input_text', text}` / `{type: 'output_text', text}`. */
  content: string | readonly { type: string }[]
}

/** A Responses API `function_call` item; `arguments` is a JSON string. */
export interface ResponsesFunctionCallItem {
  type: 'function_call'
  call_id: string
  name: string
  arguments: string
}

/** A Responses API `function_call_output` item (what the follow-up appends per call). */
export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output'
  call_id: string
  output: string
}

/** A Responses API `reasoning` item; kept exactly as it came. */
export interface ResponsesReasoningItem {
  type: 'reasoning'
}

/**
 * A Responses API input or output item: the four shapes the follow-up reads or writes, or any
 * other item type (`web_search_call`, …), which passes through.
 */
export type ResponsesItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | { type?: string; role?: string }

/** A Responses API response object, of which the follow-up reads `output`. */
export interface ResponsesResponse {
  output: readonly ResponsesItem[]
}

/** A `/v1/responses` request body; a string `input` becomes one user message in the follow-up. */
export interface ResponsesRequest {
  model?: string
  input: string | readonly ResponsesItem[]
  tools?: readonly RequestTool[]
  stream?: boolean | null
  tool_choice?: unknown
  /** A gateway's canonical envelope keeps the sampling settings, `stream` and `tool_choice` here. */
  parameters?: { readonly [setting: string]: unknown }
}

/** An Anthropic Messages API message (blocks: {@link AnthropicContentBlock}). */
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: string | readonly AnthropicContentBlock[]
}

/** An Anthropic assistant message with `tool_use` blocks (`server_tool_use` and other blocks pass through). */
export interface AnthropicAssistantMessage {
  role: 'assistant'
  content: readonly AnthropicContentBlock[]
}

/** A `/v1/messages` request body; fields not named here (`system`, `max_tokens` …) are kept as they are. */
export interface AnthropicMessagesRequest {
  model?: string
  messages: readonly AnthropicMessage[]
  tools?: readonly RequestTool[]
  stream?: boolean | null
  tool_choice?: unknown
}

// The request and message types above have no index signature, so that values typed with the
// OpenAI and Anthropic SDKs' interfaces are accepted; buildServerToolFollowup is generic over the
// original request and the assistant, so object literals with more fields are accepted too.

/** The fields of {@link buildServerToolFollowup}'s parameters every protocol shares. */
export interface ServerToolFollowupCommon {
  toolResults: readonly ServerToolResult[]
  /** The tools the gateway runs itself (removed from `tools`). Default `['web_search']`. */
  serverTools?: readonly string[]
}

/** {@link buildServerToolFollowup}'s parameters for chat completions (the default protocol). */
export interface ChatFollowupParams<O extends ChatCompletionRequest = ChatCompletionRequest, A extends ChatAssistantMessage = ChatAssistantMessage>
  extends ServerToolFollowupCommon {
  /**
   * The request as it entered chat processing: kept whole, except `stream`, `stream_options`, `tool_choice` and server
   * tools. A gateway's canonical envelope `{model, messages, tools, parameters}` loses those three keys from `parameters` too.
   */
  original: O
  /** The hop-1 assistant message. */
  assistant: A
  protocol?: 'chat'
}

/** {@link buildServerToolFollowup}'s parameters for the Responses API. */
export interface ResponsesFollowupParams<
  O extends ResponsesRequest = ResponsesRequest,
  A extends readonly ResponsesItem[] | ResponsesResponse = readonly ResponsesItem[] | ResponsesResponse,
> extends ServerToolFollowupCommon {
  /** The request as it entered chat processing. */
  original: O
  /** The hop-1 response's output items, or the response object itself. */
  assistant: A
  protocol: 'responses'
}

/** {@link buildServerToolFollowup}'s parameters for Anthropic Messages. */
export interface AnthropicFollowupParams<O extends AnthropicMessagesRequest = AnthropicMessagesRequest, A extends AnthropicAssistantMessage = AnthropicAssistantMessage>
  extends ServerToolFollowupCommon {
  /** The request as it entered chat processing. */
  original: O
  /** The hop-1 assistant message. */
  assistant: A
  protocol: 'anthropic'
}

/** {@link buildServerToolFollowup}'s parameters, for a protocol known only at run time. */
export type ServerToolFollowupParams = ChatFollowupParams | ResponsesFollowupParams | AnthropicFollowupParams

/** Options of {@link buildServerToolFollowup}. */
export interface ServerToolFollowupOptions {
  /** `'error'` (default): a call without a result throws. `'synthesize'`: it gets an error result. */
  onMissing?: 'error' | 'synthesize'
  /** The text of a synthesized result (Anthropic also marks it `is_error`). */
  syntheticText?: string
}

/** A chat follow-up body: `original`'s fields (minus `stream`, `stream_options`, `tool_choice`), messages extended. */
export interface ChatFollowupBody {
  model?: string
  /** The original messages (same objects), the assistant message, then one `tool` message per call. */
  messages: ChatMessage[]
  /** Absent when only server tools were listed. */
  tools?: RequestTool[]
  [field: string]: unknown
}

/** A Responses follow-up body: `original`'s fields (minus `stream`, `stream_options`, `tool_choice`), input extended. */
export interface ResponsesFollowupBody {
  model?: string
  /** A user message for a string input, the original items, the output items, then one `function_call_output` per call. */
  input: ResponsesItem[]
  tools?: RequestTool[]
  [field: string]: unknown
}

/** An Anthropic follow-up body: `original`'s fields (minus `stream`, `stream_options`, `tool_choice`), messages extended. */
export interface AnthropicFollowupBody {
  model?: string
  /** The original messages, the assistant message, then one user message of `tool_result` blocks. */
  messages: AnthropicMessage[]
  tools?: RequestTool[]
  [field: string]: unknown
}

/** The follow-up body of any protocol. */
export type ServerToolFollowupBody = ChatFollowupBody | ResponsesFollowupBody | AnthropicFollowupBody

/** Thrown by {@link buildServerToolFollowup} when calls and results do not pair. */
export interface ToolResultPairingError extends Error {
  code: 'TOOL_RESULT_PAIRING'
  /** The call id the error is about, when it has one. */
  toolCallId?: string
}

/**
 * Assembles the request that returns a gateway-run tool's results to the model (the "third hop"):
 * `original`'s messages (the same objects), then the assistant message as it came (reasoning fields
 * and all), then one result per call in call order — `role: 'tool'` messages (chat),
 * `function_call_output` items (responses) or one user message of `tool_result` blocks (anthropic).
 * `stream`, `stream_options` and `tool_choice` are removed, server tools leave `tools`, every other
 * field is kept. Feeding the output back as the next round's `original` applies nothing twice.
 * @throws ToolResultPairingError for a result of an unknown call, a call without a result (unless
 * `onMissing: 'synthesize'`), or a duplicated id; TypeError for input of the wrong shape.
 */
export declare function buildServerToolFollowup<O extends ChatCompletionRequest, A extends ChatAssistantMessage>(
  params: ChatFollowupParams<O, A>,
  options?: ServerToolFollowupOptions,
): ChatFollowupBody
export declare function buildServerToolFollowup<O extends ResponsesRequest, A extends readonly ResponsesItem[] | ResponsesResponse>(
  params: ResponsesFollowupParams<O, A>,
  options?: ServerToolFollowupOptions,
): ResponsesFollowupBody
export declare function buildServerToolFollowup<O extends AnthropicMessagesRequest, A extends AnthropicAssistantMessage>(
  params: AnthropicFollowupParams<O, A>,
  options?: ServerToolFollowupOptions,
): AnthropicFollowupBody
export declare function buildServerToolFollowup(params: ServerToolFollowupParams, options?: ServerToolFollowupOptions): ServerToolFollowupBody

/**
 * The assistant's answer as the client may see it: calls of the server tools removed, the client's
 * own calls kept. Accepts a chat assistant message (`tool_calls`; removed when none is left), an
 * Anthropic message (`tool_use` blocks) or Responses output (an item array, or an object with
 * `output`). Returns the same object when there is nothing to remove.
 */
export declare function stripServerToolCalls<T extends ChatAssistantMessage | AnthropicAssistantMessage | readonly ResponsesItem[] | ResponsesResponse>(assistant: T, serverTools?: readonly string[]): T

// ---- Tool-call style: XML text vs native blocks (issue #4) ----

/** A content block of an Anthropic-format (Cline / Roo Code / Kilo Code) history. Unknown block types pass through. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string | readonly AnthropicContentBlock[]; is_error?: boolean }
  | { type: string }

/** An image's source: base64 data or a URL. */
export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }

/**
 * A message of an Anthropic-format history (`api_conversation_history.json`); extra fields are kept.
 * No index signature, so the Anthropic SDK's `MessageParam` is accepted; the functions are generic
 * over the message type, so literals with more fields are accepted too.
 */
export interface AnthropicHistoryMessage {
  role: string
  content: string | readonly AnthropicContentBlock[]
  /** The time Cline / Roo Code / Kilo Code stored with the message (ms). */
  ts?: number
}

/** Where a tool-call style shows: a path in the history (`history[3].content[1]`) and what is there. */
export interface ToolStyleEvidence {
  path: string
  /** Native blocks (`tool_use`, `tool_result`), text flattened by a resume (`flattened_call`, `flattened_result`), genuine XML-protocol text (`xml_call`, `xml_result`), or a user text `[<desc>] Result:` answering a native call (`text_result`, Cline). */
  kind: 'tool_use' | 'tool_result' | 'flattened_call' | 'flattened_result' | 'xml_call' | 'xml_result' | 'text_result'
}

/** The answer of {@link detectToolStyle}. */
export interface DetectedToolStyle {
  /** `json`: only native blocks; `xml`: only calls written as text; `mixed`: both (the state to migrate); `none`: no tool calls. */
  style: 'json' | 'xml' | 'mixed' | 'none'
  evidence: ToolStyleEvidence[]
}

/** Options of {@link recoverToolBlocks} (and of {@link convertToolStyle} with `'json'`). */
export interface RecoverToolBlocksOptions {
  /**
   * The tools, Anthropic (`{name, input_schema}`) or OpenAI (`{type: 'function', function: {name, parameters}}`) shaped.
   * Their schemas restore value types (`"null"` → `null`, `"42"` → `42`, `"true"` → `true`); names absent from the list are reported.
   */
  tools?: readonly (AnthropicToolDefinition | OpenAIFunctionTool)[]
  /** Also convert genuine XML-protocol calls (`<read_file><path>a</path></read_file>` inside prose) and their `[desc] Result:` texts. Default `false`. */
  xmlProtocol?: boolean
}

/** An Anthropic tool definition; its `input_schema` (JSON Schema) types recovered values. */
export interface AnthropicToolDefinition {
  name: string
  description?: string
  input_schema?: Record<string, unknown>
  [field: string]: unknown
}

/**
 * What a {@link ToolStyleNote} is about. Unrecoverable: `object_lost`, `type_mismatch`, `images_dropped`,
 * `truncated_call`, `call_not_recorded`. Warnings: `unknown_tool`, `call_without_result`, `result_without_call`,
 * `merged_results`, `name_mismatch`. Other strings may appear in later versions.
 */
export type ToolStyleNoteKind =
  | 'object_lost'
  | 'type_mismatch'
  | 'images_dropped'
  | 'truncated_call'
  | 'call_not_recorded'
  | 'unknown_tool'
  | 'call_without_result'
  | 'result_without_call'
  | 'merged_results'
  | 'name_mismatch'
  | (string & {})

/** A tool_use / tool_result pair rebuilt by {@link recoverToolBlocks}. */
export interface RecoveredToolCall {
  /** The new id: derived from the position, `[a-zA-Z0-9_-]` only, unique in the history (for `text_result`, the call's own id). */
  id: string
  name: string
  /** Where the call was in the input (for a call that was never recorded: its result). */
  call: string
  /** Where its result was in the input; `null` when it had none (an `is_error` result was added, if a user message follows). */
  result: string | null
  /** `flattened`: text written by a resume; `xml`: genuine XML protocol; `unrecorded`: a Kilo v4.106–v4.111.0 call known only from its result; `text_result`: a native call whose result Cline stored as user text. */
  source: 'flattened' | 'xml' | 'unrecorded' | 'text_result'
}

/** Something recovery could not restore exactly, or wants the caller to know. */
export interface ToolStyleNote {
  /** A path in the input history: `history[3].content[1]`, or `history[3].content[1].input.files` for a value. */
  path: string
  /**
   * unrecoverable: `object_lost` (`[object Object]`), `type_mismatch` (text the schema's type cannot hold), `images_dropped`,
   * `truncated_call`, `call_not_recorded`. warnings: `unknown_tool`, `call_without_result`, `result_without_call`,
   * `merged_results`, `name_mismatch`.
   */
  kind: ToolStyleNoteKind
  message: string
}

/** The answer of {@link recoverToolBlocks}. */
export interface ToolBlockRecovery {
  /** The history with native blocks; the input array itself when nothing changed. */
  history: AnthropicHistoryMessage[]
  recovered: RecoveredToolCall[]
  /** Values kept as the text they are because their real value is gone (never guessed), and text left as it was. */
  unrecoverable: ToolStyleNote[]
  /** Recovered, but worth a look: unknown tools, unpaired calls or results, merged results. */
  warnings: ToolStyleNote[]
}

/** An OpenAI chat message built by {@link toOpenAiMessages}. */
export type OpenAiChatMessage =
  | { role: 'tool'; tool_call_id: string | null; content: string }
  | {
      role: 'assistant'
      content?: string
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
      reasoning_details?: unknown
    }
  | {
      role: string
      content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[]
    }

/**
 * The history in one tool-call style. `'xml'`: every `tool_use` becomes the text `<name>\n<k>\nvalue\n</k>…\n</name>` and
 * every `tool_result` the text `[name Result]\n\n…`, exactly as `resumeTaskFromHistory` wrote them (images and `is_error`
 * dropped; `Unknown Tool` when no call has the id). `'json'`: native blocks are kept and flattened ones recovered
 * ({@link recoverToolBlocks} with `options`). The input is never mutated; untouched messages are the same objects.
 */
export declare function convertToolStyle<M extends AnthropicHistoryMessage>(history: readonly M[], style: 'xml' | 'json', options?: RecoverToolBlocksOptions): AnthropicHistoryMessage[]

/**
 * Rebuilds native `tool_use` / `tool_result` pairs from calls and results that were flattened to text, pairing them by
 * position, with deterministic ids. Lossy values are reported in `unrecoverable`, never guessed. Idempotent.
 */
export declare function recoverToolBlocks<M extends AnthropicHistoryMessage>(history: readonly M[], options?: RecoverToolBlocksOptions): ToolBlockRecovery

/** Which tool-call style a history is in, with the blocks that show it. */
export declare function detectToolStyle<M extends AnthropicHistoryMessage>(history: readonly M[]): DetectedToolStyle

/**
 * The Anthropic-format history as OpenAI chat messages: tool results become `tool` messages (before the user's own blocks),
 * `tool_use` blocks `tool_calls`; images inside tool results are sent in the user message that follows the tool messages.
 */
export declare function toOpenAiMessages<M extends AnthropicHistoryMessage>(history: readonly M[]): OpenAiChatMessage[]

// ---- gateways: request bodies in their wire protocol ----

/** The wire protocols {@link sanitizeRequest} reads. */
export type WireProtocol = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini'

/** A message of an OpenAI chat completions request, as far as the repair reads it; other fields are kept. */
export interface OpenAiChatRequestMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {})
  content?: string | null | readonly ({ type: string; [key: string]: unknown })[]
  tool_calls?: readonly { id?: string; type?: string; function?: { name?: string; arguments?: string }; [key: string]: unknown }[] | null
  tool_call_id?: string
  /** An assistant's reasoning (DeepSeek, vLLM, Kimi; OpenRouter's `reasoning`): removed from earlier turns for targets that drop reasoning. */
  reasoning_content?: string | null
  reasoning?: unknown
  [key: string]: unknown
}

/** An OpenAI chat completions request body (`POST /v1/chat/completions`); unknown fields are kept. */
export interface OpenAiChatRequest {
  messages: readonly OpenAiChatRequestMessage[]
  tools?: readonly unknown[]
  [key: string]: unknown
}

/** A content block of an Anthropic Messages request, as far as the repair reads it; other fields are kept. */
export interface AnthropicRequestBlock {
  type: 'text' | 'image' | 'tool_use' | 'tool_result' | 'thinking' | 'redacted_thinking' | (string & {})
  id?: string
  tool_use_id?: string
  [key: string]: unknown
}

/** An Anthropic Messages request body (`POST /v1/messages`); unknown fields (`system`, `max_tokens`, …) are kept. */
export interface AnthropicRequest {
  messages: readonly { role: 'user' | 'assistant' | (string & {}); content: string | readonly AnthropicRequestBlock[]; [key: string]: unknown }[]
  tools?: readonly unknown[]
  [key: string]: unknown
}

/** An OpenAI Responses request body (`POST /v1/responses`); items other than messages, calls and outputs are kept as they are. */
export interface OpenAiResponsesRequest {
  input?: string | readonly { type?: string; role?: string; call_id?: string; [key: string]: unknown }[]
  tools?: readonly unknown[]
  [key: string]: unknown
}

/** A part of a Gemini content, as far as the repair reads it; other fields are kept. */
export interface GeminiRequestPart {
  text?: string
  thought?: boolean
  /** Removed when the target cannot verify it; set to `'skip_thought_signature_validator'` on an unsigned current-turn call for Gemini 3. */
  thoughtSignature?: string
  thought_signature?: string
  functionCall?: { name?: string; id?: string; args?: unknown; [key: string]: unknown }
  functionResponse?: { name?: string; id?: string; response?: unknown; [key: string]: unknown }
  [key: string]: unknown
}

/** A Gemini `generateContent` request body; unknown fields (`systemInstruction`, `generationConfig`, …) are kept. */
export interface GeminiRequest {
  contents: readonly { role?: 'user' | 'model' | (string & {}); parts: readonly GeminiRequestPart[]; [key: string]: unknown }[]
  tools?: readonly unknown[]
  [key: string]: unknown
}

/** Options of {@link sanitizeRequest}. */
export interface SanitizeRequestOptions {
  /** The body's protocol. */
  protocol: WireProtocol
  /** The target provider (`openai`, `mistral`, `deepseek`, `google`, …): picks the rules, as for `sanitizeSessionHistory`. */
  provider?: string
  /** The target's pi-ai API name; defaults to the protocol's own (`openai-completions`, `anthropic-messages`, `openai-responses`, `google-generative-ai`). */
  modelApi?: string
  /** The target model id (`gemini-…` turns on Gemini's first-turn rule; Gemini 3 and later get the stand-in signature on unsigned current-turn calls). */
  modelId?: string
  /** What the reasoning rules read of the target model, as `sanitizeSessionHistory` takes it (`reasoning: true` keeps OpenAI-compatible chat reasoning, …). */
  model?: TranscriptPolicyModel
  /** Overrides (field by field) the policy resolved from provider/modelApi/modelId. */
  policy?: TranscriptPolicyOverride
  /** The text of a synthetic tool result inserted for an unanswered call. */
  syntheticToolResultText?: string
  /** Keep the results of an errored or aborted assistant turn. */
  preserveErroredAssistantResults?: boolean
  /**
   * Longest image side kept without resizing, in pixels. Default per protocol: `anthropic` 8000
   * (2000 in a body of more than 20 images), the others 1200.
   */
  maxDimensionPx?: number
  /**
   * Largest decoded image kept without re-encoding, in bytes. Default per protocol: `anthropic`
   * 3 932 160 (5 MiB of base64), `openai-chat` / `openai-responses` 20 000 000, `gemini` 5 MiB.
   */
  maxBytes?: number
  /** See {@link SanitizeImagesOptions.maxDecodeBytes}. */
  maxDecodeBytes?: number
  /** The OpenClaw release whose image step runs (see {@link SanitizeImagesOptions.openclawVersion}). */
  openclawVersion?: OpenClawVersion
  /** Return `{ body, changes }` instead of the body. */
  report?: boolean
}

/** What {@link sanitizeRequest} returns under `report: true`; `changes[].path` is in the body's terms (`messages[2].tool_calls[0]`, `tools`). */
export interface SanitizedRequest<B> {
  body: B
  changes: Change[]
}

/**
 * Repairs a request body, in its own protocol, for the target provider: tool-call ids in the target's alphabet
 * (calls and results renamed together), each result moved right after its call (duplicates and orphans dropped, a
 * synthetic error result — a `tool` message, a `tool_result` block, a `function_call_output` item, a `functionResponse` part — for an unanswered call), consecutive same-role
 * turns merged where the target rejects them, a bootstrap user turn before a model-first history for Gemini, reasoning
 * the target cannot take dropped as the transcript pass's policy decides (unsigned `thinking` for Anthropic, earlier
 * turns' thinking — parts or `reasoning_content` / `reasoning` fields — for older Claude models and OpenAI-compatible
 * chat, Responses `reasoning` items with `encrypted_content` for a provider outside OpenAI's), Gemini thought signatures
 * the target cannot verify removed (not base64, or on a user part) and Google's documented stand-in set on a Gemini 3
 * target's unsigned current-turn calls, and an empty `tools` array removed. The body itself comes back when nothing needed repair; otherwise a shallow copy in
 * which every untouched message, content part / block and tool call is the same object. Unknown fields survive; the
 * input is never mutated. A body that is not the protocol's shape gives a TypeError naming the path
 * (`body.messages[3].tool_calls`).
 */
export declare function sanitizeRequest<B extends OpenAiChatRequest | AnthropicRequest | OpenAiResponsesRequest | GeminiRequest>(body: B, options: SanitizeRequestOptions & { report: true }): SanitizedRequest<B>
export declare function sanitizeRequest<B extends OpenAiChatRequest | AnthropicRequest | OpenAiResponsesRequest | GeminiRequest>(body: B, options: SanitizeRequestOptions & { report?: false }): B
export declare function sanitizeRequest<B extends OpenAiChatRequest | AnthropicRequest | OpenAiResponsesRequest | GeminiRequest>(body: B, options: SanitizeRequestOptions): B | SanitizedRequest<B>

/** What {@link sanitizeRequestBuffer} returns under `report: true`. */
export interface SanitizedRequestBuffer {
  body: Uint8Array
  changes: Change[]
}

/**
 * {@link sanitizeRequest} on the body as a gateway holds it: the bytes of the request (UTF-8 JSON) in, a `Buffer` out
 * (typed as `Uint8Array`, which it is, so that no Node types are needed).
 * When nothing needs repair the answer is the body itself (the same `Buffer`, or a `Buffer` over the same memory for a
 * `Uint8Array`); otherwise new bytes in which every range the repair did not touch is copied as it was (key order,
 * number formatting, escapes and whitespace of untouched parts). No JS object is built for the body. Bad JSON
 * (truncated, duplicate keys, a lone surrogate in a `\u` escape, nesting deeper than 256) or a body that is not the
 * protocol's shape gives a TypeError naming the path and, for JSON errors, the byte: `body.messages[3].content:
 * expected a closing quote, got the end of the body (byte 5242880)`.
 */
export declare function sanitizeRequestBuffer(body: Uint8Array, options: SanitizeRequestOptions & { report: true }): SanitizedRequestBuffer
export declare function sanitizeRequestBuffer(body: Uint8Array, options: SanitizeRequestOptions & { report?: false }): Uint8Array
export declare function sanitizeRequestBuffer(body: Uint8Array, options: SanitizeRequestOptions): Uint8Array | SanitizedRequestBuffer
