// The ES module entry of transcript-hygiene/openclaw: the CommonJS entry's plugin and factory, so
// `import` and `require` share one loaded addon.
import m from '../js/openclaw.js'

export const { createOpenClawPlugin } = m
export default m.default
