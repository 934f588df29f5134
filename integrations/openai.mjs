// The ES module entry of transcript-hygiene/openai: the CommonJS entry's functions by name, so
// `import` and `require` share one loaded addon.
import m from '../js/openai.js'

export const { cleanChatCompletion, cleanChatCompletionStream } = m
