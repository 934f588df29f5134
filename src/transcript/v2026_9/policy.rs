//! `resolveTranscriptPolicy` as OpenClaw 2026.9.6 decides it (`transcript-policy.ts`).
//!
//! 2026.9.6 dropped the static capability table: a provider's runtime plugin answers with its
//! own replay policy (`buildReplayPolicy`), and a provider no plugin owns falls back on the model
//! API and the model (`buildUnownedProviderTransportReplayFallback`). Either answer is merged
//! onto the default policy. So vLLM or a proxy of your own gets the fallback of its API,
//! OpenRouter `mistralai/*` gets `strict9`, Anthropic keeps its `toolu_…` ids, newer Claude
//! models keep their thinking, and OpenAI-compatible chat drops historical reasoning unless the
//! model is one that needs it back.
//!
//! The plugins and the family each answers with are [`PLUGINS`]: the bundled ones, and the
//! official external provider plugins of 2026.9.6's catalog that define a replay policy. A
//! 2026.9.6 user of such a provider has its plugin: OpenClaw installs the official plugin of
//! every provider its configuration names, from npm or, when npm says the package is
//! unavailable, from ClawHub (every catalog entry has an `npmSpec` and a `clawhubSpec`;
//! `resolvePluginInstallSources` / `installWithSourceFallback`), and only the plugin defines
//! the provider. A caller without the plugin gets the fallback by resolving the policy with no
//! provider and passing it as `policy`. A provider id is only trimmed and lowercased in 2026.9.6
//! (no alias table of its own); a plugin answers for its provider ids and their `aliases`. The
//! resolved `model` object's fields the policy reads are [`ModelFields`].

use super::PolicyFields;
use crate::js_text::js_trim;
use crate::transcript::policy::{
    SanitizeMode, ThoughtSignatureOptions, ToolCallIdMode, TranscriptPolicy,
};

/// How a provider plugin builds its replay policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// `anthropic`: strict ids with `toolu_…` kept, thinking by model.
    NativeAnthropic,
    /// `google`, `google-gemini-cli`, `google-vertex`.
    GoogleGemini,
    /// `openai`: images only; strict ids on chat completions only.
    OpenAi,
    /// `xai`: the OpenAI-compatible preset.
    OpenAiCompatible,
    /// `sglang`, `deepseek`: the OpenAI-compatible preset keeping reasoning.
    OpenAiCompatibleKeepReasoning,
    /// `ollama`, `ollama-cloud`: native API without id rewriting, else the OpenAI-compatible preset.
    Ollama,
    /// `opencode-go`: nothing but Gemini thought signatures for Gemini models.
    PassthroughGemini,
    /// `openrouter`: pass-through Gemini, plus `strict9` for Mistral models.
    OpenRouter,
    /// `github-copilot`: strict Anthropic without id rewriting on the Messages API.
    GithubCopilot,
    /// `clawrouter`: by API, Anthropic, Google or OpenAI-compatible (reasoning kept).
    ClawRouter,
    /// `mistral` (`@openclaw/mistral-provider`): Mistral's 9-character ids and nothing else.
    Mistral,
    /// `radius` (`@openclaw/radius-provider`): its own constant policy, ids left as they are,
    /// signatures kept and runtime context appended only.
    Radius,
    /// `amazon-bedrock`: the strict Anthropic policy, thinking by model, without `toolu_…` ids
    /// kept (`ANTHROPIC_BY_MODEL_REPLAY_HOOKS`).
    AnthropicByModel,
    /// `moonshot`: the OpenAI-compatible preset with ids left alone and reasoning kept.
    OpenAiCompatibleRawIds,
    /// `fireworks`: the OpenAI-compatible preset, ids left alone for Kimi K2.5 (`kimi-k2p5`).
    Fireworks,
    /// `kimi` (`@openclaw/kimi-provider`): its constant `KIMI_REPLAY_POLICY`, strict Anthropic
    /// rules without signatures and with thinking blocks dropped.
    Kimi,
}

/// The provider ids 2026.9.6's bundled plugins own (their `openclaw.plugin.json` `providers`),
/// and those of the catalog's external plugins a user of that provider has
/// (`@openclaw/NAME-provider`, from npm or ClawHub), with the `aliases` the catalog lists.
const PLUGINS: &[(&str, Family)] = &[
    ("mistral", Family::Mistral),
    ("deepseek", Family::OpenAiCompatibleKeepReasoning),
    // The other external plugins of 2026.9.6's catalog that answer with a replay policy, read
    // from their sources (README, "OpenClaw releases"; not run by the oracle); a plugin is
    // found by its provider id or one of its `aliases` (`matchesProviderPluginRef`). The
    // catalog's other plugins (Bedrock Mantle, BytePlus, Cerebras, Chutes, Cohere, Cloudflare AI
    // Gateway, Groq, Qianfan, StepFun, Synthetic, Tencent, Venice, Vercel AI Gateway, Volcengine,
    // Qwen …) define none, so their providers get the fallback, as unowned ids do here.
    ("arcee", Family::OpenAiCompatible),
    ("meta", Family::OpenAiCompatible),
    ("deepinfra", Family::PassthroughGemini),
    ("kilocode", Family::PassthroughGemini),
    ("featherless", Family::OpenAiCompatibleKeepReasoning),
    ("gmi", Family::OpenAiCompatibleKeepReasoning),
    ("gmi-cloud", Family::OpenAiCompatibleKeepReasoning),
    ("gmicloud", Family::OpenAiCompatibleKeepReasoning),
    ("longcat", Family::OpenAiCompatibleKeepReasoning),
    ("meituan-longcat", Family::OpenAiCompatibleKeepReasoning),
    ("novita", Family::OpenAiCompatibleKeepReasoning),
    ("novita-ai", Family::OpenAiCompatibleKeepReasoning),
    ("novitaai", Family::OpenAiCompatibleKeepReasoning),
    ("xiaomi", Family::OpenAiCompatibleKeepReasoning),
    ("xiaomi-token-plan", Family::OpenAiCompatibleKeepReasoning),
    ("radius", Family::Radius),
    // `extensions/amazon-bedrock/register.sync.runtime.ts`: `ANTHROPIC_BY_MODEL_REPLAY_HOOKS`
    // on every API. `bedrock` is no alias of it.
    ("amazon-bedrock", Family::AnthropicByModel),
    // `extensions/anthropic-vertex/index.ts`: `native-anthropic-by-model`.
    ("anthropic-vertex", Family::NativeAnthropic),
    // `extensions/zai/index.ts`, `extensions/baseten/index.ts`: `openai-compatible` with
    // `dropReasoningFromHistory: false`.
    ("zai", Family::OpenAiCompatibleKeepReasoning),
    ("z-ai", Family::OpenAiCompatibleKeepReasoning),
    ("z.ai", Family::OpenAiCompatibleKeepReasoning),
    ("baseten", Family::OpenAiCompatibleKeepReasoning),
    // `extensions/moonshot/index.ts`: `openai-compatible` with `sanitizeToolCallIds: false`
    // and `dropReasoningFromHistory: false`.
    ("moonshot", Family::OpenAiCompatibleRawIds),
    ("moonshotai", Family::OpenAiCompatibleRawIds),
    ("moonshot-ai", Family::OpenAiCompatibleRawIds),
    // `extensions/fireworks/index.ts`: its own `buildOpenAICompatibleReplayPolicy` call.
    ("fireworks", Family::Fireworks),
    ("fireworks-ai", Family::Fireworks),
    // `extensions/kimi-coding/replay-policy.ts`: `KIMI_REPLAY_POLICY`, on every API. Three
    // versions of it are in the sources; this is the newest (the one written with the file
    // header comments that its K3-era `index.ts` has): full, strict ids, signatures not kept,
    // thinking blocks dropped, Anthropic turns validated, synthetic results. Its aliases are
    // those the plugin registers (`kimi-code` is not in the catalog's list).
    ("kimi", Family::Kimi),
    ("kimi-code", Family::Kimi),
    ("kimi-coding", Family::Kimi),
    // `extensions/opencode/index.ts` (OpenCode Zen): `passthrough-gemini`.
    ("opencode", Family::PassthroughGemini),
    ("anthropic", Family::NativeAnthropic),
    ("google", Family::GoogleGemini),
    ("google-gemini-cli", Family::GoogleGemini),
    ("google-vertex", Family::GoogleGemini),
    ("openai", Family::OpenAi),
    ("xai", Family::OpenAiCompatible),
    ("sglang", Family::OpenAiCompatibleKeepReasoning),
    ("ollama", Family::Ollama),
    ("ollama-cloud", Family::Ollama),
    ("opencode-go", Family::PassthroughGemini),
    ("openrouter", Family::OpenRouter),
    ("github-copilot", Family::GithubCopilot),
    ("clawrouter", Family::ClawRouter),
];

/// Model ids whose reasoning OpenAI-compatible chat must replay (`REASONING_CONTENT_REPLAY_MODEL_IDS`).
const REASONING_REPLAY_MODELS: &[&str] = &[
    "kimi-for-coding",
    "kimi-k2.5",
    "kimi-k2.6",
    "kimi-k2.7-code",
    "kimi-k2.7-code-highspeed",
    "kimi-k3",
    "kimi-k2-thinking",
    "kimi-k2-thinking-turbo",
    "mimo-v2-pro",
    "mimo-v2-omni",
    "mimo-v2.5",
    "mimo-v2.5-pro",
    "mimo-v2.6-flash",
    "mimo-v2.6-pro",
    "mimo-v2.6-pro-ultraspeed",
];

/// Model-id prefixes OpenRouter treats as Mistral (after `openrouter/` and `~`).
const OPENROUTER_MISTRAL_PREFIXES: &[&str] = &[
    "mistralai/",
    "mistral/",
    "mistral-",
    "codestral-",
    "devstral-",
    "ministral-",
    "mixtral-",
    "pixtral-",
    "voxtral-",
];

const RESPONSES_APIS: &[&str] = &[
    "openai-responses",
    "openai-chatgpt-responses",
    "azure-openai-responses",
];

/// What 2026.9.6's policy reads of the resolved `model` object OpenClaw passes beside the ids
/// (`resolveTranscriptPolicy({ …, model })`); the default is a model that sets none of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelFields {
    /// `model.reasoning === true`: OpenAI-compatible chat keeps reasoning in the history.
    pub reasoning: bool,
    /// `model.compat.supportsReasoningEffort === false`: the Anthropic API drops thinking.
    pub disables_reasoning_effort: bool,
    /// `model.params.canonicalModelId`: the id the Claude rules read in place of the model id.
    pub canonical_model_id: Option<String>,
}

impl ModelFields {
    /// The id the Claude rules read (`resolveClaudeModelIdentity`'s `params.canonicalModelId ?? id`).
    fn claude_ref<'a>(&'a self, model_id: &'a str) -> &'a str {
        self.canonical_model_id.as_deref().unwrap_or(model_id)
    }
}

/// A policy as a plugin returns it: only what it sets (`None`: left to the default).
#[derive(Clone, Debug, Default)]
struct Partial {
    sanitize_mode: Option<SanitizeMode>,
    sanitize_tool_call_ids: Option<bool>,
    tool_call_id_mode: Option<ToolCallIdMode>,
    preserve_native_anthropic_tool_use_ids: Option<bool>,
    preserve_signatures: Option<bool>,
    append_only_runtime_context: Option<bool>,
    thought_signatures: bool,
    drop_thinking_blocks: Option<bool>,
    drop_reasoning_from_history: Option<bool>,
    apply_google_turn_ordering: Option<bool>,
    validate_gemini_turns: Option<bool>,
    validate_anthropic_turns: Option<bool>,
    allow_synthetic_tool_results: Option<bool>,
}

impl Partial {
    fn strict_ids(mut self) -> Partial {
        self.sanitize_tool_call_ids = Some(true);
        self.tool_call_id_mode = Some(ToolCallIdMode::Strict);
        self
    }

    /// `mergeTranscriptPolicy` onto the default policy.
    fn merge(self) -> (TranscriptPolicy, PolicyFields) {
        let policy = TranscriptPolicy {
            sanitize_mode: self.sanitize_mode.unwrap_or(SanitizeMode::ImagesOnly),
            sanitize_tool_call_ids: self.sanitize_tool_call_ids.unwrap_or(false),
            tool_call_id_mode: self.tool_call_id_mode,
            repair_tool_use_result_pairing: true,
            preserve_signatures: self.preserve_signatures.unwrap_or(false),
            sanitize_thought_signatures: self.thought_signatures.then_some(
                ThoughtSignatureOptions {
                    allow_base64_only: true,
                    include_camel_case: true,
                },
            ),
            sanitize_thinking_signatures: false,
            drop_thinking_blocks: self.drop_thinking_blocks.unwrap_or(false),
            apply_google_turn_ordering: self.apply_google_turn_ordering.unwrap_or(false),
            validate_gemini_turns: self.validate_gemini_turns.unwrap_or(false),
            validate_anthropic_turns: self.validate_anthropic_turns.unwrap_or(false),
            allow_synthetic_tool_results: self.allow_synthetic_tool_results.unwrap_or(false),
        };
        let fields = PolicyFields {
            drop_reasoning_from_history: self.drop_reasoning_from_history.unwrap_or(false),
            preserve_native_anthropic_tool_use_ids: self
                .preserve_native_anthropic_tool_use_ids
                .unwrap_or(false),
            append_only_runtime_context: self.append_only_runtime_context.unwrap_or(false),
        };
        (policy, fields)
    }
}

/// Whether Google's replay hook runs, which puts a user turn before a history that opens with the
/// assistant whatever the policy says: for Google's bundled plugin (`google`, `google-gemini-cli`,
/// `google-vertex`) on any API, and for `clawrouter` on the Gemini API (its plugin hands that API
/// to Google's hooks).
///
/// ```
/// use transcript_hygiene::transcript::v2026_9::policy::google_replay_hook;
/// assert!(google_replay_hook(Some("google-vertex"), Some("openai-completions")));
/// assert!(google_replay_hook(Some("clawrouter"), Some("google-generative-ai")));
/// assert!(!google_replay_hook(Some("clawrouter"), Some("openai-completions")));
/// ```
pub fn google_replay_hook(provider: Option<&str>, model_api: Option<&str>) -> bool {
    let provider = js_trim(provider.unwrap_or("")).to_lowercase();
    match PLUGINS.iter().find(|(id, _)| *id == provider).map(|p| p.1) {
        Some(Family::GoogleGemini) => true,
        Some(Family::ClawRouter) => model_api == Some("google-generative-ai"),
        _ => false,
    }
}

/// 2026.9.6's policy for a provider id, a model API and a model id (absent: `undefined`), and
/// the fields of the resolved model it reads.
///
/// ```
/// use transcript_hygiene::transcript::v2026_9::policy::{resolve_transcript_policy, ModelFields};
/// use transcript_hygiene::transcript::policy::ToolCallIdMode;
/// let none = ModelFields::default();
/// let (p, extra) = resolve_transcript_policy(Some("openrouter"), Some("openai-completions"), Some("mistralai/mistral-large"), &none);
/// assert_eq!(p.tool_call_id_mode, Some(ToolCallIdMode::Strict9));
/// let (_, extra_ollama) = resolve_transcript_policy(Some("ollama"), Some("openai-completions"), Some("qwen3:8b"), &none);
/// assert!(extra_ollama.drop_reasoning_from_history && !extra.drop_reasoning_from_history);
/// // A reasoning model keeps its reasoning on an unowned OpenAI-compatible provider.
/// let reasoning = ModelFields { reasoning: true, ..ModelFields::default() };
/// let (_, kept) = resolve_transcript_policy(Some("my-proxy"), Some("openai-completions"), Some("qwen3"), &reasoning);
/// assert!(!kept.drop_reasoning_from_history);
/// ```
pub fn resolve_transcript_policy(
    provider: Option<&str>,
    model_api: Option<&str>,
    model_id: Option<&str>,
    model: &ModelFields,
) -> (TranscriptPolicy, PolicyFields) {
    let id = model_id.unwrap_or("");
    let api = model_api.unwrap_or("");
    let partial = match family(provider.unwrap_or("")) {
        Some(f) => plugin_policy(f, api, id, model),
        None => unowned_fallback(api, id, model),
    };
    partial.unwrap_or_default().merge()
}

fn plugin_policy(family: Family, api: &str, model: &str, fields: &ModelFields) -> Option<Partial> {
    match family {
        Family::NativeAnthropic => {
            let mut p = anthropic_by_model(fields.claude_ref(model));
            p.preserve_native_anthropic_tool_use_ids = Some(true);
            Some(p)
        }
        Family::GoogleGemini => Some(google_gemini()),
        Family::OpenAi => Some(Partial {
            sanitize_mode: Some(SanitizeMode::ImagesOnly),
            apply_google_turn_ordering: Some(false),
            validate_gemini_turns: Some(false),
            validate_anthropic_turns: Some(false),
            allow_synthetic_tool_results: RESPONSES_APIS.contains(&api).then_some(true),
            append_only_runtime_context: RESPONSES_APIS.contains(&api).then_some(true),
            ..if api == "openai-completions" {
                Partial::default().strict_ids()
            } else {
                Partial {
                    sanitize_tool_call_ids: Some(false),
                    ..Partial::default()
                }
            }
        }),
        Family::OpenAiCompatible => openai_compatible(api, true, true),
        Family::OpenAiCompatibleKeepReasoning => openai_compatible(api, true, false),
        Family::Ollama if api == "ollama" => {
            let mut p = openai_compatible("openai-completions", false, true)?;
            p.sanitize_tool_call_ids = Some(false);
            Some(p)
        }
        Family::Ollama => openai_compatible(api, true, true),
        Family::PassthroughGemini => Some(passthrough_gemini(model)),
        Family::OpenRouter => {
            let mut p = passthrough_gemini(model);
            if is_openrouter_mistral(model) {
                p.sanitize_tool_call_ids = Some(true);
                p.tool_call_id_mode = Some(ToolCallIdMode::Strict9);
            }
            Some(p)
        }
        Family::GithubCopilot => (api == "anthropic-messages").then(|| Partial {
            drop_thinking_blocks: Some(true),
            ..strict_anthropic(false, false)
        }),
        Family::ClawRouter => match api {
            "anthropic-messages" => plugin_policy(Family::NativeAnthropic, api, model, fields),
            "google-generative-ai" => Some(google_gemini()),
            _ => openai_compatible(api, true, false),
        },
        // `buildMistralReplayPolicy` (read from the plugin, and run by the oracle).
        Family::Mistral => Some(Partial {
            sanitize_tool_call_ids: Some(true),
            tool_call_id_mode: Some(ToolCallIdMode::Strict9),
            ..Partial::default()
        }),
        // Radius's `buildReplayPolicy`, the same on every API (its models use `pi-messages`).
        Family::Radius => Some(Partial {
            sanitize_tool_call_ids: Some(false),
            preserve_signatures: Some(true),
            append_only_runtime_context: Some(true),
            drop_thinking_blocks: Some(false),
            drop_reasoning_from_history: Some(false),
            ..Partial::default()
        }),
        Family::Kimi => Some(
            Partial {
                sanitize_mode: Some(SanitizeMode::Full),
                preserve_signatures: Some(false),
                drop_thinking_blocks: Some(true),
                validate_anthropic_turns: Some(true),
                allow_synthetic_tool_results: Some(true),
                ..Partial::default()
            }
            .strict_ids(),
        ),
        Family::AnthropicByModel => Some(anthropic_by_model(fields.claude_ref(model))),
        Family::OpenAiCompatibleRawIds => openai_compatible(api, false, false),
        // `isFireworksKimiModelId`: Kimi K2.5's `functions.NAME:IDX` ids must come back as sent.
        Family::Fireworks => openai_compatible(api, !lower(model).contains("kimi-k2p5"), true),
    }
}

/// `buildStrictAnthropicReplayPolicy` (strict ids unless `ids` is false).
fn strict_anthropic(append_only: bool, ids: bool) -> Partial {
    let p = Partial {
        sanitize_mode: Some(SanitizeMode::Full),
        preserve_signatures: Some(true),
        append_only_runtime_context: Some(append_only),
        validate_anthropic_turns: Some(true),
        allow_synthetic_tool_results: Some(true),
        ..Partial::default()
    };
    if ids {
        p.strict_ids()
    } else {
        p
    }
}

/// `buildAnthropicReplayPolicyForModel`.
fn anthropic_by_model(model: &str) -> Partial {
    let mut p = strict_anthropic(binds_claude_thinking_prefix(model), true);
    if drops_claude_thinking(model) {
        p.drop_thinking_blocks = Some(true);
    }
    p
}

/// `buildGoogleGeminiReplayPolicy`.
fn google_gemini() -> Partial {
    Partial {
        append_only_runtime_context: Some(false),
        sanitize_mode: Some(SanitizeMode::Full),
        thought_signatures: true,
        apply_google_turn_ordering: Some(true),
        validate_gemini_turns: Some(true),
        validate_anthropic_turns: Some(false),
        allow_synthetic_tool_results: Some(true),
        ..Partial::default()
    }
    .strict_ids()
}

/// `buildPassthroughGeminiSanitizingReplayPolicy`.
fn passthrough_gemini(model: &str) -> Partial {
    Partial {
        apply_google_turn_ordering: Some(false),
        validate_gemini_turns: Some(false),
        validate_anthropic_turns: Some(false),
        thought_signatures: lower(model).contains("gemini"),
        ..Partial::default()
    }
}

/// `buildOpenAICompatibleReplayPolicy`: none for an API outside chat completions and Responses.
fn openai_compatible(api: &str, ids: bool, drop_reasoning: bool) -> Option<Partial> {
    let responses = RESPONSES_APIS.contains(&api);
    let completions = api == "openai-completions";
    if !responses && !completions {
        return None;
    }
    let p = Partial {
        allow_synthetic_tool_results: responses.then_some(true),
        apply_google_turn_ordering: Some(completions),
        validate_gemini_turns: Some(completions),
        validate_anthropic_turns: Some(completions),
        drop_reasoning_from_history: (completions && drop_reasoning).then_some(true),
        ..Partial::default()
    };
    Some(if ids { p.strict_ids() } else { p })
}

/// `buildUnownedProviderTransportReplayFallback`: the policy by API and model alone.
fn unowned_fallback(api: &str, id: &str, fields: &ModelFields) -> Option<Partial> {
    let google = matches!(api, "google-gemini-cli" | "google-generative-ai");
    let anthropic = matches!(api, "anthropic-messages" | "bedrock-converse-stream");
    let completions = api == "openai-completions";
    let responses = RESPONSES_APIS.contains(&api);
    if !google && !anthropic && !completions && !responses {
        return None;
    }
    let model = lower(id);
    let claude = fields.claude_ref(&model);
    let p = Partial {
        sanitize_mode: (google || anthropic).then_some(SanitizeMode::Full),
        preserve_signatures: anthropic.then_some(true),
        append_only_runtime_context: anthropic.then(|| binds_claude_thinking_prefix(claude)),
        thought_signatures: google,
        drop_thinking_blocks: (anthropic
            && (drops_claude_thinking(claude) || fields.disables_reasoning_effort))
            .then_some(true),
        drop_reasoning_from_history: completions
            .then(|| !(fields.reasoning || replays_reasoning(&model))),
        apply_google_turn_ordering: (google || completions).then_some(true),
        validate_gemini_turns: (google || completions).then_some(true),
        validate_anthropic_turns: (anthropic || completions || (responses && is_claude(&model)))
            .then_some(true),
        allow_synthetic_tool_results: (google || anthropic || responses).then_some(true),
        ..Partial::default()
    };
    Some(p.strict_ids())
}

/// `normalizeLowercaseStringOrEmpty`.
fn lower(s: &str) -> String {
    js_trim(s).to_lowercase()
}

/// `isClaudeFamilyModelId`: `claude` as a whole segment of the id.
fn is_claude(model: &str) -> bool {
    let sep = |c: char| matches!(c, '.' | '/' | ':' | '_' | '-');
    model.split(sep).any(|part| part == "claude")
}

/// `requiresReasoningContentReplay`: the id's last path segment, or either end of a `:`, is one
/// of [`REASONING_REPLAY_MODELS`].
fn replays_reasoning(model: &str) -> bool {
    let last = model.split('/').rfind(|s| !s.is_empty()).unwrap_or(model);
    let colon: Vec<&str> = last.split(':').filter(|s| !s.is_empty()).collect();
    let mut candidates = vec![last];
    if colon.len() > 1 {
        candidates.push(colon[0]);
        candidates.push(colon[colon.len() - 1]);
    }
    candidates
        .iter()
        .any(|c| REASONING_REPLAY_MODELS.contains(c))
}

/// The plugin family 2026.9.6 gives `provider`'s requests (trimmed and lowercased, as the
/// policy reads it; `None` for an id no plugin owns): the wire's rules beyond OpenClaw's policy
/// name their targets with it.
pub(crate) fn family(provider: &str) -> Option<Family> {
    let p = lower(provider);
    PLUGINS.iter().find(|(id, _)| *id == p).map(|(_, f)| *f)
}

/// `isOpenRouterMistralModelId`: a Mistral model's id (`mistralai/…`, `mistral-…`, `codestral-…`,
/// `devstral-…` …), after `openrouter/` and `~`.
pub(crate) fn is_openrouter_mistral(model: &str) -> bool {
    let m = lower(model);
    let m = m.strip_prefix("openrouter/").unwrap_or(&m);
    let m = m.strip_prefix('~').unwrap_or(m);
    OPENROUTER_MISTRAL_PREFIXES.iter().any(|p| m.starts_with(p))
}

/// `resolveClaudeModelIdentity`: lowercased, `anthropic/` dropped, runs of `.`, `_` and spaces
/// as `-`, and the trailing `claude-…` segment when there is one.
fn claude_identity(model: &str) -> String {
    let lowered = js_trim(model).to_lowercase();
    let bare = lowered.strip_prefix("anthropic/").unwrap_or(&lowered);
    let mut norm = String::with_capacity(bare.len());
    let mut in_run = false;
    for c in bare.chars() {
        let sep = matches!(c, '.' | '_') || c.is_whitespace();
        if !sep {
            norm.push(c);
        } else if !in_run {
            norm.push('-');
        }
        in_run = sep;
    }
    // `(?:^|[-/])(claude-[^/]+)$`: the last path segment, from a `claude-` that starts it or
    // follows a `-`.
    let tail = norm.rsplit('/').next().unwrap_or(&norm);
    let at = std::iter::once(0)
        .chain(tail.match_indices('-').map(|(i, _)| i + 1))
        .find(|&i| tail[i..].starts_with("claude-"));
    match at {
        Some(i) => tail[i..].to_string(),
        None => norm,
    }
}

/// Whether `name` ends at `id[end..]`: the end, or a character other than `[a-z0-9]` follows.
fn ends_at(id: &str, end: usize) -> bool {
    id[end..]
        .chars()
        .next()
        .is_none_or(|c| !c.is_ascii_lowercase() && !c.is_ascii_digit())
}

/// `(?:^|-)NAME(?=$|[^a-z0-9])`: `name` at the start of `id` or after a `-`, ending there.
fn has_segment(id: &str, name: &str) -> bool {
    id.match_indices(name)
        .any(|(i, _)| (i == 0 || id[..i].ends_with('-')) && ends_at(id, i + name.len()))
}

/// `^NAME(?=$|[^a-z0-9])`.
fn starts_segment(id: &str, name: &str) -> bool {
    id.starts_with(name) && ends_at(id, name.len())
}

fn is_opus_5_5(identity: &str) -> bool {
    identity == "opus-5-5" || starts_segment(identity, "claude-opus-5-5")
}

/// `resolveClaudeOpus5ModelIdentity(…) !== undefined`.
fn is_opus_5(identity: &str) -> bool {
    is_opus_5_5(identity)
        || identity == "opus"
        || identity == "opus-5"
        || has_segment(identity, "claude-opus-5")
}

/// `bindsClaudeThinkingPrefix`: Opus 5.5 and Fable 5.1 need append-only runtime context.
fn binds_claude_thinking_prefix(model: &str) -> bool {
    let id = claude_identity(model);
    is_opus_5_5(&id) || starts_segment(&id, "claude-fable-5-1")
}

/// `shouldDropClaudeThinkingBlocks`: a Claude model older than those that keep their thinking.
fn drops_claude_thinking(model: &str) -> bool {
    const KEEP: &[&str] = &[
        "claude-fable-5",
        "claude-mythos-5",
        "claude-mythos-preview",
        "claude-opus-4-5",
        "claude-opus-4-6",
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "claude-sonnet-4-6",
    ];
    let id = claude_identity(model);
    let opus5 = is_opus_5(&id);
    let claude = id.starts_with("claude-") || opus5;
    let keeps = opus5 || KEEP.iter().any(|k| has_segment(&id, k));
    claude && !keeps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_identity_takes_the_last_claude_segment() {
        assert_eq!(
            claude_identity("anthropic.claude-opus-4-6-v1:0"),
            "claude-opus-4-6-v1:0"
        );
        assert_eq!(
            claude_identity("Anthropic/Claude Sonnet.4_5"),
            "claude-sonnet-4-5"
        );
        assert_eq!(claude_identity("us.anthropic.claude-3-7"), "claude-3-7");
        assert_eq!(claude_identity("gpt-5"), "gpt-5");
    }

    #[test]
    fn claude_thinking_is_kept_only_for_the_newer_models() {
        for (model, drops) in [
            ("claude-sonnet-4-5", true),
            ("claude-haiku-4-5", true),
            ("claude-3-7-sonnet", true),
            ("claude-opus-4-6", false),
            ("claude-opus-4-60", true),
            ("claude-sonnet-4-6-20260101", false),
            ("claude-opus-5-5", false),
            ("opus-5", false),
            ("anthropic.claude-opus-4-6-v1:0", false),
            ("MiniMax-M2", false),
        ] {
            assert_eq!(drops_claude_thinking(model), drops, "{model}");
        }
    }

    #[test]
    fn reasoning_replay_models_match_by_segment() {
        assert!(replays_reasoning("kimi-k2.5"));
        assert!(replays_reasoning("moonshotai/kimi-k2-thinking"));
        assert!(replays_reasoning("kimi-k2.5:cloud"));
        assert!(!replays_reasoning("qwen3:8b"));
        assert!(!replays_reasoning("kimi-k2"));
    }

    #[test]
    fn the_model_fields_decide_where_2026_9_6_reads_them() {
        let with = |f: ModelFields, provider: &str, api: &str, id: &str| {
            resolve_transcript_policy(Some(provider), Some(api), Some(id), &f)
        };
        let none = ModelFields::default();
        let no_effort = ModelFields {
            disables_reasoning_effort: true,
            ..ModelFields::default()
        };
        // The Anthropic API fallback drops thinking for a model without reasoning effort; the
        // Anthropic plugin does not read that field.
        let kept = "claude-opus-4-6";
        assert!(
            !with(none.clone(), "my-proxy", "anthropic-messages", kept)
                .0
                .drop_thinking_blocks
        );
        assert!(
            with(no_effort.clone(), "my-proxy", "anthropic-messages", kept)
                .0
                .drop_thinking_blocks
        );
        assert!(
            !with(no_effort, "anthropic", "anthropic-messages", kept)
                .0
                .drop_thinking_blocks
        );
        // A canonical id stands for the model id in the Claude rules, plugin and fallback alike.
        let canonical = |id: &str| ModelFields {
            canonical_model_id: Some(id.to_string()),
            ..ModelFields::default()
        };
        let (p, extra) = with(
            canonical("claude-opus-5-5"),
            "anthropic",
            "anthropic-messages",
            "prod",
        );
        assert!(!p.drop_thinking_blocks && extra.append_only_runtime_context);
        let (p, _) = with(
            canonical("claude-sonnet-4-5"),
            "my-proxy",
            "anthropic-messages",
            kept,
        );
        assert!(p.drop_thinking_blocks);
        // `reasoning: true` keeps reasoning on the fallback only; an empty canonical id is an id.
        let reasoning = ModelFields {
            reasoning: true,
            ..ModelFields::default()
        };
        assert!(
            !with(reasoning.clone(), "my-proxy", "openai-completions", "q")
                .1
                .drop_reasoning_from_history
        );
        assert!(
            with(reasoning, "ollama", "openai-completions", "q")
                .1
                .drop_reasoning_from_history
        );
        assert!(
            !with(
                canonical(""),
                "my-proxy",
                "anthropic-messages",
                "claude-3-7"
            )
            .0
            .drop_thinking_blocks
        );
    }

    #[test]
    fn mistral_and_deepseek_get_their_external_plugins_policies() {
        let none = ModelFields::default();
        let (p, extra) = resolve_transcript_policy(
            Some(" Mistral "),
            Some("openai-completions"),
            Some("mistral-large-latest"),
            &none,
        );
        assert_eq!(p.tool_call_id_mode, Some(ToolCallIdMode::Strict9));
        assert_eq!(p.sanitize_mode, SanitizeMode::ImagesOnly);
        assert!(!p.validate_anthropic_turns && !p.apply_google_turn_ordering);
        assert!(!extra.drop_reasoning_from_history);
        let (p, extra) = resolve_transcript_policy(
            Some("deepseek"),
            Some("openai-completions"),
            Some("deepseek-chat"),
            &none,
        );
        assert_eq!(p.tool_call_id_mode, Some(ToolCallIdMode::Strict));
        assert!(p.validate_anthropic_turns && !extra.drop_reasoning_from_history);
        // Without the plugin (no provider), the fallback: strict ids, reasoning dropped.
        let (p, extra) = resolve_transcript_policy(
            None,
            Some("openai-completions"),
            Some("mistral-large-latest"),
            &none,
        );
        assert_eq!(p.tool_call_id_mode, Some(ToolCallIdMode::Strict));
        assert!(extra.drop_reasoning_from_history);
    }

    /// The catalog's external plugins, as read from their sources (README, "OpenClaw
    /// releases"): each row is what 2026.9.6 resolves with the plugin installed, where the
    /// fallback (no plugin, or a plugin without a replay policy) answers otherwise or the same.
    #[test]
    fn the_catalog_plugins_policies_are_theirs_and_the_others_get_the_fallback() {
        use ToolCallIdMode::Strict;
        let reasoning = ModelFields {
            reasoning: true,
            ..ModelFields::default()
        };
        let none = ModelFields::default();
        // (provider, API, model, fields) → (id mode, rewrites ids, OpenAI-compatible turn
        // fixes, historical reasoning dropped, Gemini signatures cleaned, signatures kept,
        // runtime context append-only).
        type Row<'a> = (&'a str, &'a str, &'a str, &'a ModelFields);
        type Want = (Option<ToolCallIdMode>, bool, bool, bool, bool, bool, bool);
        let rows: &[(Row, Want)] = &[
            // `openai-compatible` (Arcee, Meta): reasoning dropped even for a reasoning model or
            // one the fallback replays it for.
            (
                ("arcee", "openai-completions", "trinity-large", &reasoning),
                (Some(Strict), true, true, true, false, false, false),
            ),
            (
                ("meta", "openai-completions", "kimi-k2.5", &none),
                (Some(Strict), true, true, true, false, false, false),
            ),
            // `openai-compatible` keeping reasoning (Novita, GMI, Featherless, LongCat, Xiaomi),
            // their aliases, an id written loosely.
            (
                (
                    "novita",
                    "openai-completions",
                    "deepseek/deepseek-v3.2",
                    &none,
                ),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                (" GMICloud ", "openai-completions", "zai-org/GLM-5", &none),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                ("featherless", "openai-completions", "Qwen/Qwen3-32B", &none),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                (
                    "meituan-longcat",
                    "openai-completions",
                    "LongCat-Flash-Chat",
                    &none,
                ),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                (
                    "xiaomi-token-plan",
                    "openai-completions",
                    "mimo-v2-flash",
                    &none,
                ),
                (Some(Strict), true, true, false, false, false, false),
            ),
            // `passthrough-gemini` (DeepInfra, Kilo Gateway): ids and turns left alone.
            (
                (
                    "deepinfra",
                    "openai-completions",
                    "google/gemini-2.5-pro",
                    &none,
                ),
                (None, false, false, false, true, false, false),
            ),
            (
                (
                    "kilocode",
                    "openai-completions",
                    "anthropic/claude-sonnet-4.5",
                    &none,
                ),
                (None, false, false, false, false, false, false),
            ),
            // Radius's own policy, on its `pi-messages` API.
            (
                ("radius", "pi-messages", "balanced", &none),
                (None, false, false, false, false, true, true),
            ),
            // The catalog plugins once taken for absent (ClawHub installs them): Bedrock's
            // strict Anthropic policy on any API, where the fallback would treat it as chat.
            (
                (
                    "amazon-bedrock",
                    "openai-completions",
                    "openai.gpt-oss-120b-1:0",
                    &none,
                ),
                (Some(Strict), true, false, false, false, true, false),
            ),
            (
                ("z.ai", "openai-completions", "glm-4.6", &none),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                ("baseten", "openai-completions", "zai-org/GLM-5", &none),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                ("moonshotai", "openai-completions", "kimi-k2.5", &none),
                (None, false, true, false, false, false, false),
            ),
            (
                (
                    "fireworks",
                    "openai-completions",
                    "accounts/fireworks/models/kimi-k2p5",
                    &none,
                ),
                (None, false, true, true, false, false, false),
            ),
            (
                (
                    "fireworks-ai",
                    "openai-completions",
                    "accounts/fireworks/models/glm-5",
                    &none,
                ),
                (Some(Strict), true, true, true, false, false, false),
            ),
            (
                ("opencode", "openai-completions", "gemini-2.5-pro", &none),
                (None, false, false, false, true, false, false),
            ),
            // Twins: plugins without a replay policy, and unowned ids, get the fallback.
            (
                (
                    "groq",
                    "openai-completions",
                    "llama-3.3-70b-versatile",
                    &none,
                ),
                (Some(Strict), true, true, true, false, false, false),
            ),
            (
                ("tencent-tokenhub", "openai-completions", "kimi-k2.5", &none),
                (Some(Strict), true, true, false, false, false, false),
            ),
            (
                ("radius-proxy", "pi-messages", "balanced", &none),
                (None, false, false, false, false, false, false),
            ),
            (
                ("novita", "anthropic-messages", "claude-sonnet-4-5", &none),
                (None, false, false, false, false, false, false),
            ),
            (
                ("synthetic", "anthropic-messages", "hf:zai-org/GLM-5", &none),
                (Some(Strict), true, false, false, false, true, false),
            ),
        ];
        for ((provider, api, model, fields), want) in rows {
            let (p, extra) =
                resolve_transcript_policy(Some(provider), Some(api), Some(model), fields);
            let got = (
                p.tool_call_id_mode,
                p.sanitize_tool_call_ids,
                p.apply_google_turn_ordering && p.validate_gemini_turns,
                extra.drop_reasoning_from_history,
                p.sanitize_thought_signatures.is_some(),
                p.preserve_signatures,
                extra.append_only_runtime_context,
            );
            assert_eq!(&got, want, "{provider} {api} {model}");
        }
        // Kimi's constant policy, whatever the API and model, under each of its ids.
        for provider in ["kimi", " Kimi-Coding ", "kimi-code"] {
            for (api, model) in [
                ("anthropic-messages", "kimi-for-coding"),
                ("openai-completions", "kimi-k2.6"),
            ] {
                let (p, extra) =
                    resolve_transcript_policy(Some(provider), Some(api), Some(model), &none);
                assert_eq!(p.sanitize_mode, SanitizeMode::Full, "{provider} {api}");
                assert_eq!(p.tool_call_id_mode, Some(Strict), "{provider} {api}");
                assert!(p.sanitize_tool_call_ids && p.validate_anthropic_turns);
                assert!(!p.preserve_signatures && p.drop_thinking_blocks);
                assert!(p.allow_synthetic_tool_results && !extra.drop_reasoning_from_history);
                assert!(!p.apply_google_turn_ordering);
            }
        }
        // The fallback for the same Anthropic API keeps signatures and thinking.
        let (p, _) = resolve_transcript_policy(
            Some("kimi-other"),
            Some("anthropic-messages"),
            Some("kimi-for-coding"),
            &none,
        );
        assert!(p.preserve_signatures && !p.drop_thinking_blocks);
        // Anthropic on Vertex keeps `toolu_…` ids (native family); Bedrock's family does not.
        let native = |provider| {
            resolve_transcript_policy(
                Some(provider),
                Some("anthropic-messages"),
                Some("claude-sonnet-4-5"),
                &none,
            )
            .1
            .preserve_native_anthropic_tool_use_ids
        };
        assert!(native("anthropic-vertex") && !native("amazon-bedrock"));
    }

    #[test]
    fn only_the_plugin_ids_are_owned_and_ids_are_not_de_aliased() {
        let none = ModelFields::default();
        let (p, _) = resolve_transcript_policy(
            Some(" Google "),
            Some("google-vertex"),
            Some("gemini"),
            &none,
        );
        assert_eq!(p.sanitize_mode, SanitizeMode::Full);
        // `bedrock` is not `amazon-bedrock` any more and is not owned: the API decides.
        let (p, _) = resolve_transcript_policy(Some("bedrock"), Some("ollama"), Some("x"), &none);
        assert_eq!(p.tool_call_id_mode, None);
        assert!(!p.validate_anthropic_turns);
    }
}
