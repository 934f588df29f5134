// The reference implementation, loaded in this process: OpenClaw's own internal functions.
//
// OpenClaw ships as a bundle whose hygiene functions (`sanitizeSessionHistory`, the pairing and
// turn rules, the reply scrubbers) are internal to its chunks and not exported. This file is two
// things at once:
//   - the loader (main thread): `loadOpenClaw({ version, names })` finds an installed
//     `openclaw@<version>`, finds the dist chunk that defines each wanted name, registers this
//     same file as a module-customization hook, imports those chunks and returns
//     `{ version, dir, fns: { name: function } }` (or `null` when the package is not installed);
//   - the hook (Node's loader thread: `initialize` and `load`): when one of those chunks loads, its
//     source gets `export { name as ocName, … }` appended, so the import sees the internals.
// Nothing here knows a chunk's hashed file name or a version's layout: the chunk is whichever
// dist file defines the name at top level, so the same loader serves 2026.3.23-2 and 2026.9.6.
//
// Used by every benchmark and by __test__/openclaw-parity.spec.mjs. Install the reference with
// `sh scripts/install-reference.sh` (npm, pinned by benchmark/package-lock.json; cached in
// benchmark/node_modules, which git ignores).
import { existsSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))

/** The version every figure and parity case is compared with unless told otherwise. */
export const DEFAULT_VERSION = '2026.3.23-2'

/** What to run when the reference is missing. */
export function installHint(version = DEFAULT_VERSION) {
  return `openclaw@${version} is not installed: run \`sh scripts/install-reference.sh\` (npm; ~600 MB, a few minutes the first time) or set OPENCLAW_DIR to an unpacked openclaw@${version} with its dependencies`
}

/** The installed package directory of `openclaw@version`, or null. */
export function findOpenClaw(version = DEFAULT_VERSION) {
  const candidates = []
  if (process.env.OPENCLAW_DIR) candidates.push(process.env.OPENCLAW_DIR)
  // benchmark/package.json installs the default version as `openclaw`, benchmark/oc96/package.json
  // 2026.9.6 (its own lockfile: it needs Node >= 24.16); others may sit under an alias.
  candidates.push(
    join(HERE, 'node_modules', 'openclaw'),
    join(HERE, 'oc96', 'node_modules', 'openclaw'),
    join(HERE, 'node_modules', `openclaw-${version}`),
  )
  for (const dir of candidates) {
    const pkg = join(dir, 'package.json')
    if (!existsSync(pkg)) continue
    try {
      // The real path: node_modules may be a link to a cache (scripts/install-reference.sh), and
      // the loader sees modules by their real paths.
      if (JSON.parse(readFileSync(pkg, 'utf8')).version === version) return realpathSync(dir)
    } catch {
      // An unreadable package.json is not the reference.
    }
  }
  return null
}

/**
 * The names `src` binds at its top level: defined there (function, class, const/let/var) or, unless
 * `definedOnly`, imported from another chunk (`import { x as name }`); either can be exported again.
 */
function topLevelBindings(src, names, definedOnly) {
  const found = []
  for (const name of names) {
    if (!src.includes(name)) continue
    const n = name.replace(/\$/g, '\\$')
    const defined = new RegExp(`^(?:async function\\*? |function\\*? |class |const |let |var )${n}\\b`, 'm')
    const imported = new RegExp(`^import \\{(?:[^}\\n]*,)?\\s*(?:[\\w$]+ as )?${n}\\s*[,}]`, 'm')
    if (defined.test(src) || (!definedOnly && imported.test(src))) found.push(name)
  }
  return found
}

/**
 * Every internal function the benchmarks and the parity spec use. Pass the same list on every
 * call in a process: a chunk is imported once, with the exports the first call asked for.
 */
export const NAMES = [
  'sanitizeSessionHistory', 'resolveTranscriptPolicy', 'repairToolCallInputs', 'sanitizeToolCallInputs',
  'repairToolUseResultPairing', 'sanitizeToolUseResultPairing', 'validateAnthropicTurns', 'validateGeminiTurns',
  'limitHistoryTurns', 'sanitizeToolCallIdsForCloudCodeAssist', 'sanitizeToolCallId', 'ensureAssistantUsageSnapshots',
  'stripReasoningTagsFromText', 'stripMinimaxToolCallXml', 'stripModelSpecialTokens', 'stripDowngradedToolCallText',
]

/**
 * The same for openclaw 2026.9.6 (Node >= 24.16): the reply chain (`sanitizeAssistantVisibleText`
 * runs the delivery filters, `sanitizeUserFacingText` the user-facing ones) and its scrubbers, the
 * CommonMark code-region finder every scrubber protects code with, the text-call promotion its
 * provider streams apply to a finished reply (`promotePlainTextToolCalls`), and the transcript pass.
 */
export const NAMES_2026_9_6 = [
  'sanitizeAssistantVisibleText', 'sanitizeUserFacingText', 'stripModelSpecialTokens', 'stripRelevantMemoriesTags',
  'stripAssistantInternalTraceLines', 'stripLegacyBracketToolCallBlocks', 'stripToolCallXmlTags', 'stripMinimaxToolCallXml',
  'stripDowngradedToolCallText', 'stripReasoningTagsFromText', 'stripFinalTags', 'stripPlainTextToolCallBlocks', 'findCodeRegions',
  'promotePlainTextToolCalls',
  'sanitizeSessionHistory', 'resolveTranscriptPolicy', 'limitHistoryTurns', 'validateAnthropicTurns',
  'createVerifiedConversationContextStreamFilter', 'prepareVerifiedConversationContext', 'stripVerifiedConversationContext',
]

/**
 * A call no function of OpenClaw's takes as JSON, and the functions it needs: `[name, prompt,
 * chunks]` runs the prompt-echo filter a delivery stream makes
 * (`createVerifiedConversationContextStreamFilter`) over the chunks; its value is `{ pieces, whole,
 * wholeStreaming }`: what each chunk released, and the prompt's copies removed from the whole
 * reply without and with the streaming cut.
 */
export const ECHO_STREAM = 'conversationContextStream'
export const ECHO_STREAM_NAMES = ['createVerifiedConversationContextStreamFilter', 'prepareVerifiedConversationContext', 'stripVerifiedConversationContext']

function echoStream(fns, prompt, chunks) {
  const filter = fns.createVerifiedConversationContextStreamFilter(() => prompt)
  const pieces = chunks.map((c) => filter(c))
  const whole = chunks.join('')
  const strip = (streaming) => fns.stripVerifiedConversationContext(whole, fns.prepareVerifiedConversationContext(prompt.trim()), streaming)
  return { pieces, whole: strip(false), wholeStreaming: strip(true) }
}

/**
 * Runs the calls `[name, ...args]` on the loaded functions `fns`, awaiting each answer (2026.9.6's
 * `sanitizeSessionHistory` is async): `[{ value }]` or `[{ error }]`, in order. Calls cross process
 * boundaries as JSON, so a first argument with `sessionEntries` (custom entries `{customType, data}`)
 * gets the session manager both releases read from them (`getEntries`, 2026.9.6's `getBranch`;
 * `sessionBranch`, custom entries too, makes `getBranch` give those instead: a branched session);
 * with `recordAppended: true` too, the answer's `appended` lists the entry types it appended.
 */
export async function invoke(fns, calls, version) {
  const out = []
  for (const [name, ...args] of calls) {
    if (name === ECHO_STREAM && ECHO_STREAM_NAMES.every((n) => typeof fns[n] === 'function')) {
      out.push({ value: echoStream(fns, ...args) })
      continue
    }
    const f = fns[name]
    if (typeof f !== 'function') {
      out.push({ error: `openclaw ${version} has no ${name}` })
      continue
    }
    // A function cannot cross as JSON: an option `resolveProtectedRanges: 'findCodeRegions'` names
    // the release's own code finder (2026.9.6's `stripPlainTextToolCallBlocks` as its reply chain calls it).
    // Nor can a Set: `{ $set: [...] }` stands for one.
    for (const [i, a] of args.entries()) {
      if (a && typeof a === 'object' && a.resolveProtectedRanges === 'findCodeRegions') args[i] = { ...a, resolveProtectedRanges: fns.findCodeRegions }
      if (a && typeof a === 'object' && Array.isArray(a.$set)) args[i] = new Set(a.$set)
    }
    const first = args[0]
    // With `recordAppended: true` the answer also lists the custom entry types the call appended.
    const appended = first && typeof first === 'object' && first.recordAppended === true ? [] : null
    if (first && typeof first === 'object' && Array.isArray(first.sessionEntries)) {
      const custom = (list) => list.map((e) => ({ type: 'custom', ...e }))
      const entries = custom(first.sessionEntries)
      const branch = Array.isArray(first.sessionBranch) ? custom(first.sessionBranch) : entries
      const { sessionEntries, sessionBranch, recordAppended, ...rest } = first
      const appendCustomEntry = (customType) => appended?.push(customType)
      args[0] = { ...rest, sessionManager: { getEntries: () => entries, getBranch: () => branch, appendCustomEntry } }
    }
    try {
      const value = await f(...args)
      out.push(appended === null ? { value } : { value, appended })
    } catch (err) {
      out.push({ error: String(err && err.message ? err.message : err) })
    }
  }
  return out
}

let registered = null
const loaded = new Map()
// The chunk URLs this process has imported.
const imported = new Set()

/**
 * Which dist chunk defines each of `names`: `Map(url -> [name])`. Finding them reads every chunk
 * (2026.9.6 has 7,297: ~20 s on this machine), so the answer is kept beside the installed package
 * (`.chunk-index.json` in the cache folder scripts/install-reference.sh made; the dist never
 * changes under it) and read back on later loads.
 */
function chunksDefining(dir, names) {
  const index = join(dir, '..', '..', '.chunk-index.json')
  const key = names.join(',')
  let known = {}
  try {
    known = JSON.parse(readFileSync(index, 'utf8'))
  } catch {
    // No index yet (or unreadable): build it.
  }
  if (known[key]) return new Map(Object.entries(known[key]).map(([f, n]) => [pathToFileURL(join(dir, 'dist', f)).href, n]))
  const dist = join(dir, 'dist')
  // 2026.3.23-2 ships .js chunks, 2026.9.6 .mjs ones.
  const files = readdirSync(dist).filter((f) => f.endsWith('.js') || f.endsWith('.mjs'))
  files.sort((a, b) => Number(b.startsWith('pi-embedded-')) - Number(a.startsWith('pi-embedded-')) || (a < b ? -1 : 1))
  // The chunk that defines a name first: one that only imports it may pull in far more (in
  // 2026.9.6 the agent runner imports sanitizeUserFacingText: 25 s to load instead of 3).
  const found = {}
  let missing = names.slice()
  for (const definedOnly of [true, false]) {
    for (const f of files) {
      if (missing.length === 0) break
      const src = readFileSync(join(dist, f), 'utf8')
      const here = topLevelBindings(src, missing, definedOnly)
      if (here.length === 0) continue
      found[f] = [...(found[f] ?? []), ...here]
      missing = missing.filter((n) => !here.includes(n))
    }
  }
  try {
    writeFileSync(index, JSON.stringify({ ...known, [key]: found }))
  } catch {
    // A read-only cache only costs the scan again next time.
  }
  return new Map(Object.entries(found).map(([f, n]) => [pathToFileURL(join(dist, f)).href, n]))
}

/**
 * OpenClaw's internal functions `names` from the installed `openclaw@version`:
 * `{ version, dir, fns }`, or `null` when that version is not installed. A name no chunk defines
 * is missing from `fns` (the caller decides whether that matters). The pi-embedded chunk is
 * searched first (it holds the transcript pass), then every other chunk.
 */
export async function loadOpenClaw({ version = DEFAULT_VERSION, names = NAMES } = {}) {
  const dir = findOpenClaw(version)
  if (dir === null) return null
  const key = `${dir}\0${names.join(',')}`
  if (loaded.has(key)) return loaded.get(key)
  // A chunk this process imported already answers from Node's module cache, without the exports
  // this load appends: it is imported again, as a new instance, under a query of its own.
  const byFile = new Map(
    [...chunksDefining(dir, names)].map(([url, defined]) => {
      const again = imported.has(url) ? `${url}?oc=${loaded.size}` : url
      imported.add(url)
      return [again, defined]
    }),
  )
  if (registered === null) {
    const { register } = await import('node:module')
    const { port1, port2 } = new MessageChannel()
    registered = port1
    register(import.meta.url, { data: { port: port2 }, transferList: [port2] })
  }
  // Tell the hook what to append before anything is imported (it answers once it has it).
  await new Promise((resolve) => {
    registered.once('message', resolve)
    registered.postMessage(Object.fromEntries(byFile))
  })
  registered.unref()
  const fns = {}
  for (const [url, defined] of byFile) {
    const mod = await import(url)
    for (const name of defined) fns[name] = mod[`oc${name}`]
  }
  const result = { version, dir, fns }
  loaded.set(key, result)
  return result
}

// ---- the hook (runs on Node's loader thread) ----

const EXPORTS = new Map()

export function initialize({ port }) {
  port.on('message', (byFile) => {
    for (const [url, defined] of Object.entries(byFile)) {
      const set = EXPORTS.get(url) ?? new Set()
      for (const n of defined) set.add(n)
      EXPORTS.set(url, set)
    }
    port.postMessage('ok')
  })
  port.unref()
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context)
  const defined = EXPORTS.get(url)
  if (defined === undefined || result.format !== 'module') return result
  const src = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source)
  const list = [...defined].map((n) => `${n} as oc${n}`).join(', ')
  return { ...result, source: `${src}\nexport { ${list} };\n` }
}
