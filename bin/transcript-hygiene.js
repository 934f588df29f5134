#!/usr/bin/env node
'use strict'
// The `transcript-hygiene` command (package.json `bin`). Everything is in js/cli/.

// Output cut short by the reader (`| head`) ends the run quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw err
  })
}

let main
try {
  ;({ main } = require('../js/cli/main.js'))
} catch (err) {
  // The native addon could not be loaded (no prebuilt binary for this platform, say).
  process.stderr.write(`transcript-hygiene: ${String(err && err.message ? err.message : err).split('\n')[0]}\n`)
  process.exit(2)
}

const io = {
  // Opened only by the commands that read it.
  get stdin() {
    return process.stdin
  },
  stdout: process.stdout,
  stderr: process.stderr,
}
main(process.argv.slice(2), io).then((code) => {
  process.exitCode = code
})
