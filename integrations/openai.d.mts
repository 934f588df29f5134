// Types of the ES module entry (openai.mjs): the same declarations as openai.d.ts.
export * from './openai.js'
