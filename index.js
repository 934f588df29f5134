'use strict'
// The public entry of transcript-hygiene. The native loader napi-rs generates is binding.js; this
// file re-exports what needs no codec and the codec-wrapped transcript functions.

const transcript = require('./js/transcript.js')

module.exports = {
  repairToolCallInputs: transcript.repairToolCallInputs,
  sanitizeToolCallInputs: transcript.sanitizeToolCallInputs,
  repairToolUseResultPairing: transcript.repairToolUseResultPairing,
  sanitizeToolUseResultPairing: transcript.sanitizeToolUseResultPairing,
}
