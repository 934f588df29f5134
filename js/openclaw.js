'use strict'
// The OpenClaw plugin (the `transcript-hygiene/openclaw` entry; with openclaw.plugin.json and
// package.json's `openclaw.extensions` this package is an OpenClaw plugin itself). Glue only: the
// text is cleaned by seed 000's sanitizer (createResponseSanitizer: the response cleaner in strip
// mode, per the model's provider); this file wires it to OpenClaw's hooks:
//   - message_sending: every outbound channel message, cleaned per the model of the turn, never
//     left empty (the fallback text instead, unless media goes with it);
//   - before_message_write: assistant text in the stored transcript, cleaned the same way (calls
//     written as text are removed, never turned into calls that did not run);
//   - the model of the turn: OpenClaw's message_sending context names no model. Each assistant
//     message written carries its provider and model, and the run's start announces them
//     (`llm_input` on 2026.3.x; `model_call_started` on hosts with a session API, such as 2026.9.x,
//     where llm_input needs a conversation-access grant). They are remembered by session key
//     (which 2026.9.x's message_sending context carries) and by channel (2026.3.x's only link).

const { createResponseSanitizer } = require('./scrub.js')
const { OPTIONS, pick } = require('./options.js')

const ID = 'transcript-hygiene'
/** Sessions and channels remembered (the oldest is forgotten first). */
const MAX_REMEMBERED = 1000
const NO_FALLBACK = { fallback: false }

/** The models of recent turns, by session key and by channel, and the last one seen. */
class TurnModels {
  constructor() {
    this.bySession = new Map()
    this.byChannel = new Map()
    this.last = ''
  }

  note(model, ctx) {
    if (typeof model !== 'string' || model === '') return
    this.last = model
    remember(this.bySession, ctx?.sessionKey, model)
    remember(this.byChannel, ctx?.channelId ?? ctx?.messageProvider, model)
  }

  /** The model for a message_sending context ('' when none was seen: the generic rules). */
  of(ctx) {
    return this.bySession.get(ctx?.sessionKey) ?? this.byChannel.get(ctx?.channelId) ?? this.last
  }
}

function remember(map, key, model) {
  if (typeof key !== 'string' || key === '') return
  map.delete(key)
  map.set(key, model)
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value)
}

/** OpenClaw's model reference `provider/model` (the seed reads the provider from the first segment). */
function modelRef(provider, model) {
  if (typeof model !== 'string' || model === '') return ''
  return typeof provider === 'string' && provider !== '' ? `${provider}/${model}` : model
}

const blank = (s) => s.trim() === ''
const hasMedia = (event) => Array.isArray(event?.metadata?.mediaUrls) && event.metadata.mediaUrls.length > 0

/**
 * The plugin definition OpenClaw loads. `config` (seed 000's sanitizer config, `fallback`,
 * `transcript`) replaces `api.pluginConfig` when given, for use inside another plugin.
 */
function createOpenClawPlugin(config) {
  const own = config === undefined ? undefined : pick(config, OPTIONS.openclawPlugin, 'config')
  return {
    id: ID,
    name: 'Transcript hygiene',
    description: 'Removes tool-call markup and thinking tags from outbound messages and the stored transcript (MiniMax, GLM, Qwen, DeepSeek, Kimi …)',
    register(api) {
      const cfg = own ?? pick(api?.pluginConfig, OPTIONS.openclawPlugin, `plugins.entries.${ID}.config`)
      const sanitizer = createResponseSanitizer({ enabled: cfg.enabled, providers: cfg.providers })
      if (!sanitizer.enabled) return
      const withFallback = cfg.fallback === undefined ? undefined : { fallback: cfg.fallback }
      const models = new TurnModels()
      const noteRun = (event, ctx) => models.note(modelRef(event?.provider, event?.model), { ...ctx, sessionKey: ctx?.sessionKey ?? event?.sessionKey })

      api.on('message_sending', (event, ctx) => {
        const text = event?.content
        if (typeof text !== 'string' || text === '') return undefined
        const model = models.of(ctx)
        const cleaned = sanitizer.sanitize(model, text, withFallback)
        if (cleaned === text) return undefined
        if (!hasMedia(event)) return { content: cleaned }
        // A caption: with media to send, nothing visible left is an empty caption, not the fallback.
        const bare = sanitizer.sanitize(model, text, NO_FALLBACK)
        return { content: blank(bare) ? '' : bare }
      })

      api.on('before_message_write', (event, ctx) => {
        const message = event?.message
        if (message === null || typeof message !== 'object' || message.role !== 'assistant') return undefined
        const model = modelRef(message.provider, message.model)
        models.note(model, { sessionKey: ctx?.sessionKey ?? event?.sessionKey })
        if (cfg.transcript === false) return undefined
        const content = cleanContent(sanitizer, model, message.content, withFallback)
        return content === message.content ? undefined : { message: { ...message, content } }
      })

      // The run's start names the model before any of its text is delivered (see the file comment).
      api.on(typeof api.session === 'object' && api.session !== null ? 'model_call_started' : 'llm_input', noteRun)
    },
  }
}

/**
 * An assistant message's content with its text cleaned: a text block left blank is dropped;
 * when no block is left, one text block holds the fallback text (what the channel was sent).
 * Returns `content` itself when nothing changed.
 */
function cleanContent(sanitizer, model, content, withFallback) {
  if (typeof content === 'string') {
    return content === '' ? content : sanitizer.sanitize(model, content, withFallback)
  }
  if (!Array.isArray(content)) return content
  let changed = false
  const out = []
  for (const block of content) {
    const text = block?.type === 'text' ? block.text : undefined
    if (typeof text !== 'string' || text === '') {
      out.push(block)
      continue
    }
    const cleaned = sanitizer.sanitize(model, text, NO_FALLBACK)
    if (cleaned === text) {
      out.push(block)
      continue
    }
    changed = true
    if (!blank(cleaned)) out.push({ ...block, text: cleaned })
  }
  if (!changed) return content
  if (out.length === 0) {
    const all = content.map((b) => b.text).join('\n')
    out.push({ type: 'text', text: sanitizer.sanitize(model, all, withFallback) })
  }
  return out
}

// OpenClaw's loader takes the module's `default` (the plugin, configured from plugins.entries).
module.exports = { default: createOpenClawPlugin(), createOpenClawPlugin }
