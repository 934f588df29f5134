// Types of the ES module entry (ai-sdk.mjs): the same declarations as ai-sdk.d.ts.
export * from './ai-sdk.js'
