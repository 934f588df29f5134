// Types of the ES module entry (index.mjs): the same declarations as index.d.ts, which index.mjs
// re-exports by name, plus the default export (the whole module, as `import th from` gives).
export * from './index.js'
import * as th from './index.js'
export default th
