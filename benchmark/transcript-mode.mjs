// Which OpenClaw release the transcript tables (bench.mjs's full pass, session.mjs) run beside:
// 2026.3.23-2 by default (on Node 20), or 2026.9.6 when TH_BENCH_OPENCLAW=2026.9.6 (on Node 24:
// benchmark/transcript-vs-openclaw96.mjs sets it and picks the Node). This package runs the same
// release's pass in each case, on the same transcripts.
import { loadOpenClaw } from './openclaw.mjs'

export const VERSION = process.env.TH_BENCH_OPENCLAW === '2026.9.6' ? '2026.9.6' : '2026.3.23'
const NEW = VERSION === '2026.9.6'

/** The reference release's functions (`{version, dir, fns}`), or null when it is not installed. */
export function loadReference() {
  return NEW ? loadOpenClaw({ version: VERSION, names: ['sanitizeSessionHistory', 'resolveTranscriptPolicy'] }) : loadOpenClaw()
}

/** An empty session manager (2026.9.6 reads the branch too): neither side reads or records entries. */
export function emptySession() {
  return NEW ? { getEntries: () => [], getBranch: () => [], appendCustomEntry() {} } : { getEntries: () => [], appendCustomEntry() {} }
}
