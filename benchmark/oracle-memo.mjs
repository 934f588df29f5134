// Answers of an OpenClaw oracle, remembered by their question. Importing 2026.9.6's transcript
// pass takes ~6 s of CPU (its chunk pulls in the whole agent runner; 25 s wall on a loaded
// machine), more than a spec that runs twice in CI may cost. The oracle is a pinned package and
// the calls are plain JSON, so its answers are a function of (version, calls): the first run asks
// the real package and stores the answers beside the installed reference (the cache folder
// scripts/install-reference.sh made, outside the clone), named by the SHA-256 of the question;
// later runs with the same cases read them back. Changing a case, the oracle version or the
// installed package (its folder name carries the lockfile's checksum) asks again.
//
//   const answers = await memoized('2026.9.6', calls, (calls) => runOpenClaw96(calls))
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findOpenClaw } from './openclaw.mjs'

/** `ask(calls)`'s answers for `calls` on openclaw `version`, from the memo when it has them. */
export async function memoized(version, calls, ask) {
  const dir = findOpenClaw(version)
  if (dir === null) return ask(calls)
  const question = JSON.stringify([version, dir, calls])
  const file = join(dir, '..', '..', '.oracle-answers', `${createHash('sha256').update(question).digest('hex')}.json`)
  if (existsSync(file)) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'))
    } catch {
      // A torn or unreadable file: ask again.
    }
  }
  const answers = await ask(calls)
  // An answer saying the oracle lacks a function is this process failing to load it, not the
  // package's answer: it is not remembered.
  const unloaded = (a) => typeof a?.error === 'string' && a.error.startsWith(`openclaw ${version} has no `)
  if (answers !== null && !answers.some(unloaded)) {
    try {
      mkdirSync(join(file, '..'), { recursive: true })
      writeFileSync(`${file}.${process.pid}`, JSON.stringify(answers))
      // Renamed into place, so a concurrent reader never sees half a file.
      renameSync(`${file}.${process.pid}`, file)
    } catch {
      // A read-only cache only costs asking again next time.
    }
  }
  return answers
}
