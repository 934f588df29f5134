'use strict'
// The `transcript-hygiene` command: picks the subcommand, runs it, turns every failure into one
// line on stderr and an exit code (0 ok, 1 changes found with --check, 2 bad input).

const c = require('./common.js')

const COMMANDS = ['sanitize', 'repair', 'clean', 'migrate', 'detect']
const load = (name) => require(`./${name}.js`)

function version() {
  return require('../../package.json').version
}

function help() {
  const lines = COMMANDS.map((name) => `  ${name.padEnd(10)}${load(name).summary}`)
  return `Usage: ${c.PROG} <command> [options]

Transcript hygiene for LLM agents, from the command line: the checks and repairs of the
transcript-hygiene package (a native addon) on files.

Commands
${lines.join('\n')}

  ${c.PROG} <command> --help   shows a command's options
  ${c.PROG} --version          prints the version

Exit codes: 0 done, 1 changes found with --check, 2 bad input (a one-line reason on stderr).
`
}

/**
 * Runs the command line `argv` (without node and the script) with `io` = {stdin, stdout, stderr};
 * resolves to the exit code. Never throws.
 */
async function main(argv, io) {
  try {
    const [first, ...rest] = argv
    if (first === undefined || first === '-h' || first === '--help') {
      io.stdout.write(help())
      return c.EXIT.OK
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(`${version()}\n`)
      return c.EXIT.OK
    }
    if (first === 'help') {
      const name = rest[0]
      if (name === undefined) io.stdout.write(help())
      else if (COMMANDS.includes(name)) io.stdout.write(load(name).help)
      else throw new c.CliError(`${c.PROG}: unknown command ${JSON.stringify(name)} (commands: ${COMMANDS.join(', ')})`)
      return c.EXIT.OK
    }
    if (!COMMANDS.includes(first)) {
      const what = first.startsWith('-') ? `unknown option ${first}` : `unknown command ${JSON.stringify(first)}`
      throw new c.CliError(`${c.PROG}: ${what} (commands: ${COMMANDS.join(', ')}; see ${c.PROG} --help)`)
    }
    return await load(first).run(rest, io)
  } catch (err) {
    if (err instanceof c.CliError) {
      io.stderr.write(`${err.message}\n`)
      return c.EXIT.BAD_INPUT
    }
    // Not expected: still one line, the stack only when asked for.
    io.stderr.write(`${c.PROG}: ${c.oneLine(err)}\n`)
    if (process.env.TRANSCRIPT_HYGIENE_DEBUG && err && err.stack) io.stderr.write(`${err.stack}\n`)
    return c.EXIT.BAD_INPUT
  }
}

module.exports = { main, COMMANDS }
