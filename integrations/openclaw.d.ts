// Types of transcript-hygiene/openclaw: the OpenClaw plugin this package is (openclaw.plugin.json,
// package.json `openclaw.extensions`), and its factory for use inside another OpenClaw plugin.
// Written without OpenClaw's own types (`openclaw`, an optional peer dependency): the plugin API
// object OpenClaw passes (`OpenClawPluginApi` from openclaw/plugin-sdk) satisfies PluginApiLike.
import type { ResponseSanitizerConfig } from '../index.js'

/**
 * The plugin's config (`plugins.entries['transcript-hygiene'].config` in OpenClaw's config file):
 * seed 000's sanitizer config (`enabled`, `providers`: per provider `stripToolCalls`,
 * `stripThinkingTags`, each default `true`) and two more keys.
 */
export interface OpenClawPluginConfig extends ResponseSanitizerConfig {
  /**
   * Sent instead of a message that cleaning leaves with nothing visible. Default: seed 000's
   * `抱歉，我遇到了一些技术问题。请换一种方式提问。` for a Chinese reply, an English sentence otherwise.
   */
  fallback?: string
  /** `false`: only outbound messages are cleaned, the stored transcript keeps what the model wrote. Default `true`. */
  transcript?: boolean
}

/** What the plugin uses of OpenClaw's plugin API: its config and `on` (typed hooks). */
export interface PluginApiLike {
  /** The validated `plugins.entries.<id>.config`. */
  pluginConfig?: Record<string, unknown>
  /** Present on OpenClaw releases with a session API (2026.9.x), which gate `llm_input`. */
  session?: object
  /** Registers a typed hook handler (`api.on('message_sending', …)`). */
  on(hookName: string, handler: (event: never, ctx: never) => unknown): void
}

/** An OpenClaw plugin definition (OpenClaw's `OpenClawPluginDefinition` shape). */
export interface TranscriptHygienePlugin {
  readonly id: 'transcript-hygiene'
  readonly name: string
  readonly description: string
  /**
   * Registers `message_sending` (every outbound channel message cleaned per the model of the
   * turn, never left empty), `before_message_write` (assistant text stored clean; calls written
   * as text are removed, never made into calls) and the hook that announces the turn's model
   * (`llm_input`, or `model_call_started` where `api.session` exists). Nothing when `enabled` is false.
   * @throws TypeError naming the config key when the config has a wrong type.
   */
  register(api: PluginApiLike): void
}

/**
 * The plugin with `config` in place of `api.pluginConfig`: to run the same cleaning from another
 * plugin (a channel's reply dispatcher), with that plugin's settings.
 * @throws TypeError naming the key when `config` does not have the {@link OpenClawPluginConfig} shape.
 */
export declare function createOpenClawPlugin(config?: OpenClawPluginConfig): TranscriptHygienePlugin

/** The plugin as OpenClaw loads it, configured from `plugins.entries['transcript-hygiene'].config`. */
declare const plugin: TranscriptHygienePlugin
export default plugin
