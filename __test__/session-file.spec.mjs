// repairSessionFile (§7): drop unparsable JSONL lines from a session file, keeping a backup.
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { th } from './fixtures/helpers.mjs'

const { repairSessionFile } = th

const HEADER = JSON.stringify({ type: 'session', version: 7, id: 'sess-1', timestamp: '2026-03-01T00:00:00.000Z', cwd: '/tmp' })
const MSG1 = JSON.stringify({ type: 'message', id: 'm1', parentId: null, timestamp: '2026-03-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1 } })
const MSG2 = JSON.stringify({ type: 'message', id: 'm2', parentId: 'm1', timestamp: '2026-03-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }], timestamp: 2 } })
const TORN = '{"type":"message","id":"m3","mess'

let root
let n = 0
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'th-session-'))
})
after(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

/** A fresh directory holding one session file with `content`; returns {dir, file}. */
function sessionFile(content, mode) {
  const dir = path.join(root, `case-${n++}`)
  fs.mkdirSync(dir)
  const file = path.join(dir, 'session.jsonl')
  fs.writeFileSync(file, content)
  if (mode !== undefined) fs.chmodSync(file, mode)
  return { dir, file }
}

describe('repairSessionFile', () => {
  test('a malformed trailing line is dropped and the original kept as <file>.bak-<pid>-<ms>', () => {
    const original = `${HEADER}\n${MSG1}\n${MSG2}\n${TORN}`
    const { dir, file } = sessionFile(original)
    const t0 = Date.now()
    const r = repairSessionFile(file)
    const t1 = Date.now()
    assert.deepEqual(Object.keys(r).sort(), ['backupPath', 'droppedLineNumbers', 'droppedLines', 'repaired'])
    assert.deepEqual(r.droppedLineNumbers, [4])
    assert.equal(r.repaired, true)
    assert.equal(r.droppedLines, 1)
    const m = /^(.*)\.bak-(\d+)-(\d+)$/.exec(r.backupPath)
    assert.ok(m, r.backupPath)
    assert.equal(m[1], file)
    assert.equal(Number(m[2]), process.pid)
    assert.ok(Number(m[3]) >= t0 - 1 && Number(m[3]) <= t1 + 1, `backup stamp ${m[3]} not within [${t0}, ${t1}]`)
    assert.deepEqual(fs.readFileSync(r.backupPath), Buffer.from(original))
    const repaired = fs.readFileSync(file, 'utf8')
    assert.equal(repaired, `${HEADER}\n${MSG1}\n${MSG2}\n`)
    // No temporary file is left behind.
    assert.deepEqual(fs.readdirSync(dir).sort(), ['session.jsonl', path.basename(r.backupPath)].sort())
  })

  test('malformed lines in the middle are dropped and counted; every kept line parses', () => {
    const { file } = sessionFile(`${HEADER}\nnot json at all\n${MSG1}\n{"unterminated": \n${MSG2}\n`)
    const r = repairSessionFile(file)
    assert.equal(r.repaired, true)
    assert.equal(r.droppedLines, 2)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    assert.equal(lines.pop(), '')
    assert.deepEqual(lines.map((l) => JSON.parse(l).id), ['sess-1', 'm1', 'm2'])
  })

  test('a valid file is left untouched: same bytes, same mtime, no backup', () => {
    const original = `${HEADER}\n${MSG1}\n${MSG2}\n`
    const { dir, file } = sessionFile(original)
    const past = new Date(Date.now() - 3600_000)
    fs.utimesSync(file, past, past)
    const before = fs.statSync(file).mtimeMs
    const r = repairSessionFile(file)
    assert.deepEqual(r, { repaired: false, droppedLines: 0 })
    assert.equal(fs.statSync(file).mtimeMs, before)
    assert.equal(fs.readFileSync(file, 'utf8'), original)
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
  })

  test('any JSON value is a valid line, and blank lines are neither dropped nor counted', () => {
    const original = `${HEADER}\n\n[1,2]\n   \n"str"\n42\nnull\n${MSG1}\n`
    const { file } = sessionFile(original)
    assert.deepEqual(repairSessionFile(file), { repaired: false, droppedLines: 0 })
    assert.equal(fs.readFileSync(file, 'utf8'), original)
  })

  test('a CRLF file with only valid lines is kept byte for byte', () => {
    const original = `${HEADER}\r\n${MSG1}\r\n${MSG2}\r\n`
    const { file } = sessionFile(original)
    assert.deepEqual(repairSessionFile(file), { repaired: false, droppedLines: 0 })
    assert.deepEqual(fs.readFileSync(file), Buffer.from(original))
  })

  test('CRLF lines are not counted as malformed when a repair happens', () => {
    const { file } = sessionFile(`${HEADER}\r\n${MSG1}\r\n${TORN}\r\n${MSG2}\r\n`)
    const r = repairSessionFile(file)
    assert.equal(r.repaired, true)
    assert.equal(r.droppedLines, 1)
    const kept = fs.readFileSync(file, 'utf8').split(/\r?\n/).filter(Boolean)
    assert.deepEqual(kept.map((l) => JSON.parse(l).id), ['sess-1', 'm1', 'm2'])
  })

  test('an invalid header skips the repair with a reason, writes nothing, and warns', () => {
    const original = `${MSG1}\n${TORN}\n${HEADER}\n`
    const { dir, file } = sessionFile(original)
    const warnings = []
    const r = repairSessionFile(file, { warn: (w) => warnings.push(w) })
    assert.equal(r.repaired, false)
    assert.equal(r.reason, 'invalid session header')
    assert.equal(fs.readFileSync(file, 'utf8'), original)
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
    assert.deepEqual(warnings, ['session file repair skipped: invalid session header (session.jsonl)'])
  })

  test('the header needs type "session" and a non-empty string id', () => {
    for (const header of [{ type: 'session' }, { type: 'session', id: '' }, { type: 'session', id: 7 }, { type: 'Session', id: 'x' }, [1]]) {
      const { file } = sessionFile(`${JSON.stringify(header)}\n${TORN}\n`)
      const r = repairSessionFile(file)
      assert.equal(r.reason, 'invalid session header', JSON.stringify(header))
      assert.equal(r.repaired, false)
    }
  })

  test('a file with no valid line: "empty session file", nothing written', () => {
    for (const content of ['', '\n\n', `${TORN}\n`]) {
      const { dir, file } = sessionFile(content)
      const r = repairSessionFile(file)
      assert.equal(r.repaired, false)
      assert.equal(r.reason, 'empty session file')
      assert.equal(fs.readFileSync(file, 'utf8'), content)
      assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
    }
  })

  test('a missing file (or a blank path) gives the reason "missing session file"', () => {
    assert.deepEqual(repairSessionFile(path.join(root, 'does-not-exist.jsonl')), { repaired: false, droppedLines: 0, reason: 'missing session file' })
    assert.deepEqual(repairSessionFile('   '), { repaired: false, droppedLines: 0, reason: 'missing session file' })
  })

  test('a directory cannot be read: the reason starts with "failed to read session file"', () => {
    const dir = path.join(root, `dir-${n++}`)
    fs.mkdirSync(dir)
    const warnings = []
    const r = repairSessionFile(dir, { warn: (w) => warnings.push(w) })
    assert.equal(r.repaired, false)
    assert.equal(r.droppedLines, 0)
    assert.match(r.reason, /^failed to read session file/)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0], /^session file repair skipped: failed to read session file/)
  })

  test('backup: false repairs without writing a backup', () => {
    const { dir, file } = sessionFile(`${HEADER}\n${MSG1}\n${TORN}`)
    const r = repairSessionFile(file, { backup: false })
    assert.equal(r.repaired, true)
    assert.equal(r.droppedLines, 1)
    assert.equal('backupPath' in r, false)
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
    assert.equal(fs.readFileSync(file, 'utf8'), `${HEADER}\n${MSG1}\n`)
  })

  test('dryRun: true writes nothing and names the lines a real run would drop', () => {
    const original = `${HEADER}\nnot json\n${MSG1}\n${TORN}`
    const { dir, file } = sessionFile(original)
    const warnings = []
    const r = repairSessionFile(file, { dryRun: true, warn: (w) => warnings.push(w) })
    assert.deepEqual(r, { repaired: false, droppedLines: 2, droppedLineNumbers: [2, 4], reason: 'dry run' })
    assert.deepEqual(warnings, [])
    assert.equal(fs.readFileSync(file, 'utf8'), original)
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
    // A file with nothing to drop answers as a real run does.
    const clean = sessionFile(`${HEADER}\n${MSG1}\n`)
    assert.deepEqual(repairSessionFile(clean.file, { dryRun: true }), { repaired: false, droppedLines: 0 })
  })

  test('the repaired file and its backup keep the original permissions', { skip: process.platform === 'win32' }, () => {
    const { file } = sessionFile(`${HEADER}\n${TORN}\n`, 0o600)
    const r = repairSessionFile(file)
    assert.equal(fs.statSync(file).mode & 0o777, 0o600)
    assert.equal(fs.statSync(r.backupPath).mode & 0o777, 0o600)
  })

  test('a symlinked session file is repaired where it lives and the link stays a link', { skip: process.platform === 'win32' }, () => {
    const { dir, file } = sessionFile(`${HEADER}\n${MSG1}\n${TORN}`, 0o640)
    const link = path.join(dir, 'link.jsonl')
    fs.symlinkSync('session.jsonl', link)
    const r = repairSessionFile(link)
    assert.equal(r.repaired, true)
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link was replaced by a regular file')
    assert.equal(fs.readFileSync(file, 'utf8'), `${HEADER}\n${MSG1}\n`)
    assert.equal(fs.statSync(file).mode & 0o777, 0o640)
    assert.ok(r.backupPath.startsWith(`${file}.bak-`), r.backupPath)
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), [])
  })

  test('a symlink planted at a predictable backup or temporary name is never followed', { skip: process.platform === 'win32' }, () => {
    const { dir, file } = sessionFile(`${HEADER}\n${TORN}`)
    const victim = path.join(dir, 'victim')
    fs.writeFileSync(victim, 'keep')
    // The names the writer used to pick: <file>.bak-<pid>-<ms> for the next few milliseconds and
    // <file>.repair-<pid>-<ms>.tmp.
    const now = Date.now()
    for (let ms = now; ms < now + 2000; ms++) {
      fs.symlinkSync(victim, `${file}.bak-${process.pid}-${ms}`)
      fs.symlinkSync(victim, `${file}.repair-${process.pid}-${ms}.tmp`)
    }
    const r = repairSessionFile(file)
    assert.equal(r.repaired, true, JSON.stringify(r))
    assert.equal(fs.readFileSync(victim, 'utf8'), 'keep')
    assert.equal(fs.lstatSync(r.backupPath).isSymbolicLink(), false)
    assert.equal(fs.readFileSync(r.backupPath, 'utf8'), `${HEADER}\n${TORN}`)
  })

  test('a successful repair warns through options.warn', () => {
    const { file } = sessionFile(`${HEADER}\n${TORN}\n`)
    const warnings = []
    repairSessionFile(file, { warn: (w) => warnings.push(w) })
    assert.deepEqual(warnings, ['session file repaired: dropped 1 malformed line(s) (session.jsonl)'])
  })

  test('a non-string path is a TypeError', () => {
    for (const p of [undefined, null, 42, {}]) assert.throws(() => repairSessionFile(p), TypeError)
  })
})
