// The ES module entry of transcript-hygiene/ai-sdk: the CommonJS entry's functions by name, so
// `import` and `require` share one loaded addon.
import m from '../js/ai-sdk.js'

export const { toolCallRecovery, transcriptHygiene } = m
