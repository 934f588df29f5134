'use strict'
// What every subcommand of the command-line tool shares: argument parsing, reading and writing
// files, backups, directory listing, progress, and the error that ends a run with exit code 2.
// No hygiene rule lives here or anywhere in js/cli/: the subcommands call the public API.

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const native = require('../../binding.js')

const PROG = 'transcript-hygiene'

/** Exit codes, as issue #6 fixes them. */
const EXIT = { OK: 0, CHANGES: 1, BAD_INPUT: 2 }

/** Bad input of any kind: printed as one line on stderr, exit code 2. */
class CliError extends Error {}

/** The message of an error on one line (a native or JSON error can span several). */
function oneLine(err) {
  const m = err && typeof err.message === 'string' ? err.message : String(err)
  return m.replace(/\s*\n\s*/g, ' ').trim()
}

/**
 * `util.parseArgs` with the command's options, `-h/--help` added, and its errors turned into one
 * line that names the command. Returns `{values, positionals}`, or `null` when help was asked.
 */
function parse(cmd, argv, options, { min = 0, max = Infinity } = {}) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (err) {
    throw new CliError(`${PROG} ${cmd}: ${argumentError(err)} (see ${PROG} ${cmd} --help)`)
  }
  if (parsed.values.help) return null
  const n = parsed.positionals.length
  if (n < min) throw new CliError(`${PROG} ${cmd}: missing argument (see ${PROG} ${cmd} --help)`)
  if (n > max) throw new CliError(`${PROG} ${cmd}: unexpected argument ${JSON.stringify(parsed.positionals[max])} (see ${PROG} ${cmd} --help)`)
  return parsed
}

function argumentError(err) {
  const m = oneLine(err)
  switch (err && err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const opt = /'([^']+)'/.exec(m)
      return `unknown option ${opt ? opt[1] : ''}`.trim()
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const opt = /'(-[^' ]+)/.exec(m)
      return opt ? `option ${opt[1]} ${/argument missing/.test(m) ? 'needs a value' : 'takes no value'}` : m
    }
    default:
      return m
  }
}

/** `path: reason` for an I/O error, without Node's error code prefix and syscall noise. */
function ioReason(file, err) {
  const byCode = {
    ENOENT: 'no such file or directory',
    EISDIR: 'is a directory',
    ENOTDIR: 'a parent is not a directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOSPC: 'no space left on device',
    EROFS: 'read-only file system',
  }
  return `${file}: ${byCode[err && err.code] || oneLine(err)}`
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new CliError(ioReason(file, err))
  }
}

function readBytes(file) {
  try {
    return fs.readFileSync(file)
  } catch (err) {
    throw new CliError(ioReason(file, err))
  }
}

/** All of a readable stream (stdin) as a UTF-8 string. */
async function readAll(stream) {
  const chunks = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(text, file) {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new CliError(`${file}: not valid JSON (${oneLine(err)})`)
  }
}

/** A JSON file's value (bad input when it cannot be read or parsed). */
function readJsonFile(file) {
  return parseJson(readText(file), file)
}

/**
 * How a JSON text was indented: `''` for compact one-line JSON, else the indentation of its second
 * line, so a rewritten file keeps the style of the one it replaces.
 */
function jsonIndent(text) {
  const m = /^\s*[[{][ \t]*\r?\n([ \t]+)/.exec(text)
  return m ? m[1] : ''
}

function stringifyLike(value, original) {
  const out = JSON.stringify(value, null, jsonIndent(original) || undefined)
  return /\n\s*$/.test(original) ? `${out}\n` : out
}

/**
 * Replaces `file` with `data` through the package's one writer (native, shared with
 * repairSessionFile): a symlink is written through, the temporary file is created exclusively
 * beside the target with `mode` (default: the target's), synced and renamed, and the directory
 * synced. With `expect` (the bytes read), nothing is written when the file no longer holds them;
 * with `backup`, those bytes are first saved as `<file>.bak-<pid>-<ms>`. Returns
 * `{path, backupPath}`; a failure is bad input naming the path.
 */
function writeFile(file, data, { mode, expect, backup = false } = {}) {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  try {
    return native.writeFileAtomic(file, bytes, mode, expect, backup)
  } catch (err) {
    throw new CliError(oneLine(err))
  }
}

function fileMode(file) {
  try {
    return fs.statSync(file).mode & 0o7777
  } catch {
    return undefined
  }
}

function isDirectory(p) {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/**
 * The files below `dir` that `wanted(name)` accepts, sorted, optionally in subdirectories too.
 * Symbolic links to directories are not followed (no loops).
 */
function listFiles(dir, wanted, recursive) {
  const out = []
  const walk = (d) => {
    let entries
    try {
      entries = fs.readdirSync(d, { withFileTypes: true })
    } catch (err) {
      throw new CliError(ioReason(d, err))
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) {
        if (recursive) walk(p)
      } else if ((e.isFile() || e.isSymbolicLink()) && wanted(e.name)) out.push(p)
    }
  }
  walk(dir)
  return out
}

const isJsonl = (name) => name.endsWith('.jsonl')

/**
 * The files a command runs on: each argument as a file, a directory as its `*.jsonl` files
 * (`wanted` decides). Returns `[{file, base}]`, `base` the directory given (for relative names).
 */
function expandPaths(args, { wanted = isJsonl, recursive = false } = {}) {
  const out = []
  for (const a of args) {
    if (isDirectory(a)) for (const file of listFiles(a, wanted, recursive)) out.push({ file, base: a })
    else out.push({ file: a, base: null })
  }
  return out
}

/**
 * A one-line progress counter on `stream` (`\r[3/40] name`), only when the stream is a terminal
 * and there is more than one file; `done()` clears the line.
 */
function progress(stream, total) {
  if (!stream.isTTY || total < 2) return { tick() {}, done() {} }
  const width = Math.max(20, (stream.columns || 80) - 1)
  let shown = false
  return {
    tick(i, label) {
      let line = `[${i + 1}/${total}] ${label}`
      if (line.length > width) line = `${line.slice(0, width - 1)}…`
      stream.write(`\r\x1b[K${line}`)
      shown = true
    },
    done() {
      if (shown) stream.write('\r\x1b[K')
      shown = false
    },
  }
}

/** Writes a line to a stream, clearing a progress line first when one may be showing. */
function say(stream, text) {
  stream.write(stream.isTTY ? `\r\x1b[K${text}\n` : `${text}\n`)
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

module.exports = {
  PROG,
  EXIT,
  CliError,
  oneLine,
  parse,
  readText,
  readBytes,
  readAll,
  parseJson,
  readJsonFile,
  jsonIndent,
  stringifyLike,
  writeFile,
  fileMode,
  isDirectory,
  listFiles,
  expandPaths,
  isJsonl,
  progress,
  say,
  plural,
}
