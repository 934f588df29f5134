// Types of the ES module entry (openclaw.mjs): the same declarations as openclaw.d.ts.
import type { TranscriptHygienePlugin } from './openclaw.js'

export * from './openclaw.js'

/** The plugin as OpenClaw loads it, configured from `plugins.entries['transcript-hygiene'].config`. */
declare const plugin: TranscriptHygienePlugin
export default plugin
