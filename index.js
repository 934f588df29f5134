'use strict'
// The public entry of transcript-hygiene. binding.js is the native loader napi-rs generates; the
// functions exported here wrap it (see js/).

module.exports = {
  ...require('./js/transcript.js'),
  ...require('./js/images.js'),
  ...require('./js/response.js'),
  ...require('./js/response-stream.js'),
  ...require('./js/echo-stream.js'),
  ...require('./js/scrub.js'),
  ...require('./js/followup.js'),
  ...require('./js/tool_style.js'),
  ...require('./js/request.js'),
}
