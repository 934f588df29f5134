// The image pass (§4.7): sanitizeSessionMessagesImages, and images inside sanitizeSessionHistory.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { th, user, assistant, toolCall, toolResult, text, thinking, runFrozen, roles } from './fixtures/helpers.mjs'
import { encodePng, jpegSize, pngSize } from './fixtures/png.mjs'

// OpenClaw 2026.3.23-2's image pass (sharp's texts; src/image/release.rs has 2026.9.6's):
// pinned, whatever the package default is.
th.setOpenClawVersion('2026.3.23')

const { sanitizeSessionMessagesImages, sanitizeSessionHistory } = th

const WIDE = encodePng(2600, 400).toString('base64')
const SMALL_PNG = encodePng(40, 30).toString('base64')
const MEDIUM = encodePng(300, 200).toString('base64')
const NOISE = encodePng(600, 600, { noise: 7 }).toString('base64') // ~1 MB of incompressible pixels
const TRUNCATED = encodePng(40, 30).subarray(0, 16).toString('base64') // cut inside IHDR: no dimensions

const image = (data, mimeType = 'image/png', extra) => ({ type: 'image', data, mimeType, ...extra })
const decoded = (b64) => Buffer.from(b64, 'base64')
const imagesOf = (msgs) => msgs.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'image') : []))

describe('sanitizeSessionMessagesImages: image payloads', () => {
  test('a 2600×400 PNG is re-encoded as a JPEG within 1200 px', () => {
    const input = [toolResult('c1', 'screenshot', { content: [text('shot'), image(WIDE, 'image/png', { fileName: 'wide.png' })] })]
    const out = runFrozen((m) => sanitizeSessionMessagesImages(m, 'session:history'), input)
    const img = out[0].content[1]
    assert.equal(img.type, 'image')
    assert.equal(img.mimeType, 'image/jpeg')
    assert.ok(img.data.startsWith('/9j/'), img.data.slice(0, 8))
    assert.equal(img.fileName, 'wide.png', 'other block fields are kept')
    const size = jpegSize(decoded(img.data))
    assert.ok(size, 'the output decodes as a JPEG')
    assert.equal(size.width, 1200)
    assert.ok(size.height >= 184 && size.height <= 185, `height ${size.height}`)
    // The text block next to it is the same object.
    assert.equal(out[0].content[0], input[0].content[0])
  })

  test('a small PNG mislabelled image/jpeg gets mimeType image/png and keeps its bytes', () => {
    const out = sanitizeSessionMessagesImages([user([image(SMALL_PNG, 'image/jpeg')])], 'session:history')
    const img = out[0].content[0]
    assert.equal(img.mimeType, 'image/png')
    assert.equal(img.data, SMALL_PNG)
  })

  test('a payload that is not base64 becomes an "invalid base64" text block', () => {
    const out = sanitizeSessionMessagesImages([user([text('look'), image('not base64!')])], 'session:history')
    assert.deepEqual(out[0].content[1], { type: 'text', text: '[session:history] omitted image payload: invalid base64' })
  })

  test('a blank payload becomes an "empty image payload" text block', () => {
    const out = sanitizeSessionMessagesImages([user([image('   ')])], 'session:history')
    assert.deepEqual(out[0].content, [{ type: 'text', text: '[session:history] omitted empty image payload' }])
  })

  test('openclawVersion in the options picks the release of the image step (the same image, both notes)', () => {
    const blocks = [image(TRUNCATED)]
    const note = (o) => th.sanitizeContentBlocksImages(blocks, 'read', o)[0].text
    assert.equal(note({ openclawVersion: '2026.9.6' }), '[read] omitted image payload: RastermillError: Unable to determine image dimensions; refusing to process')
    assert.equal(note({ openclawVersion: '2026.3.23' }), note(undefined))
    assert.ok(note(undefined).startsWith('[read] omitted image payload: Error:'), note(undefined))
    assert.equal(sanitizeSessionMessagesImages([user(blocks)], 'session:history', { openclawVersion: '2026.9.6' })[0].content[0].text, '[session:history] omitted image payload: RastermillError: Unable to determine image dimensions; refusing to process')
  })

  test('a truncated PNG becomes an "omitted image payload: Error: …" text block', () => {
    const out = sanitizeSessionMessagesImages([user([image(TRUNCATED)])], 'session:history')
    const b = out[0].content[0]
    assert.equal(b.type, 'text')
    assert.ok(b.text.startsWith('[session:history] omitted image payload: Error:'), b.text)
  })

  test('base64 with whitespace is canonicalised (whitespace removed), mime type inferred', () => {
    const wrapped = SMALL_PNG.replace(/(.{20})/g, '$1\n ')
    const out = sanitizeSessionMessagesImages([user([image(wrapped, 'image/webp')])], 'session:history')
    assert.deepEqual(out[0].content[0], image(SMALL_PNG, 'image/png'))
  })

  test('a GIF labelled image/png gets image/gif', () => {
    const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
    const out = sanitizeSessionMessagesImages([user([image(gif, 'image/png')])], 'session:history')
    assert.deepEqual(out[0].content[0], image(gif, 'image/gif'))
  })

  test('image blocks whose data is not a string pass through', () => {
    const odd = [{ type: 'image', data: 123, mimeType: 'image/png' }, { type: 'image', mimeType: 'image/png' }]
    const out = sanitizeSessionMessagesImages([user(odd)], 'session:history')
    assert.equal(out[0].content[0], odd[0])
    assert.equal(out[0].content[1], odd[1])
  })

  test('the label is used in the replacement text', () => {
    const out = sanitizeSessionMessagesImages([user([image('   ')])], 'read:/tmp/x.png')
    assert.equal(out[0].content[0].text, '[read:/tmp/x.png] omitted empty image payload')
  })

  test('maxDimensionPx is honoured', () => {
    const out = sanitizeSessionMessagesImages([user([image(MEDIUM)])], 'session:history', { maxDimensionPx: 100 })
    const img = out[0].content[0]
    assert.equal(img.mimeType, 'image/jpeg')
    const size = jpegSize(decoded(img.data))
    assert.ok(size.width <= 100 && size.height <= 100, JSON.stringify(size))
    assert.equal(size.width, 100)
  })

  test('maxBytes is honoured: an image within the side limit but over the byte limit is re-encoded below it', () => {
    assert.ok(decoded(NOISE).length > 1_000_000)
    const maxBytes = 400_000
    const out = sanitizeSessionMessagesImages([user([image(NOISE)])], 'session:history', { maxBytes })
    const img = out[0].content[0]
    assert.equal(img.type, 'image', JSON.stringify(img).slice(0, 200))
    assert.equal(img.mimeType, 'image/jpeg')
    assert.ok(decoded(img.data).length <= maxBytes, `${decoded(img.data).length} bytes`)
  })

  test('an image that cannot be reduced below maxBytes becomes an explanatory text block', () => {
    const out = sanitizeSessionMessagesImages([user([image(NOISE)])], 'session:history', { maxBytes: 2000 })
    const b = out[0].content[0]
    assert.equal(b.type, 'text')
    assert.ok(b.text.startsWith('[session:history] omitted image payload: Error: Image could not be reduced below'), b.text)
  })

  test('an image within the limits keeps the very same block object', () => {
    const kept = image(MEDIUM)
    const input = [user([text('a'), kept]), toolResult('c', 'x', { content: [kept] })]
    const out = runFrozen((m) => sanitizeSessionMessagesImages(m, 'session:history'), input)
    assert.equal(out[0].content[1], kept)
    assert.equal(out[1].content[0], kept)
    assert.equal(out[0], input[0])
    assert.ok(pngSize(decoded(kept.data)))
  })

  test('always returns a new array', () => {
    const input = [user('q')]
    const out = sanitizeSessionMessagesImages(input, 'session:history')
    assert.notEqual(out, input)
    assert.equal(out[0], input[0])
  })

  test('images in user, toolResult and errored assistant content are all sanitised', () => {
    const input = [
      user([image('not base64!')]),
      toolResult('c', 'x', { content: [image('not base64!')] }),
      assistant([image('not base64!')], { stopReason: 'error' }),
    ]
    const out = sanitizeSessionMessagesImages(input, 'session:history')
    for (const m of out) assert.equal(m.content[0].type, 'text', m.role)
  })

  test('a toolResult without content gets an empty content array', () => {
    const tr = toolResult('c')
    delete tr.content
    const out = sanitizeSessionMessagesImages([tr], 'session:history')
    assert.deepEqual(out[0].content, [])
  })
})

describe('sanitizeSessionMessagesImages: full-mode assistant cleanup', () => {
  test('tool-call ids are unchanged by default', () => {
    const input = [assistant([toolCall('call_1|fc_1')]), toolResult('call_1|fc_1')]
    const out = sanitizeSessionMessagesImages(input, 'session:history')
    assert.equal(out[0], input[0])
    assert.equal(out[1], input[1])
  })

  test('sanitizeToolCallIds rewrites ids (strict), toolUseId included', () => {
    const r = toolResult('call_1|fc_1')
    r.toolUseId = 'call_1|fc_1'
    const out = sanitizeSessionMessagesImages([assistant([toolCall('call_1|fc_1')]), r], 'session:history', { sanitizeToolCallIds: true, toolCallIdMode: 'strict' })
    assert.equal(out[0].content[0].id, 'call1fc1')
    assert.equal(out[1].toolCallId, 'call1fc1')
    assert.equal(out[1].toolUseId, 'call1fc1')
  })

  test('ids are rewritten in images-only mode too, where empty text is kept', () => {
    const out = sanitizeSessionMessagesImages([assistant([text(''), toolCall('call_1|fc_1')])], 'session:history', { sanitizeMode: 'images-only', sanitizeToolCallIds: true, toolCallIdMode: 'strict9' })
    assert.deepEqual(out[0].content[0], text(''))
    assert.match(out[0].content[1].id, /^[a-zA-Z0-9]{9}$/)
  })

  test('no input is synthesised for a call without arguments', () => {
    const bare = { type: 'toolCall', id: 'c1', name: 'read' }
    const out = sanitizeSessionMessagesImages([assistant([bare])], 'session:history')
    assert.equal(out[0].content[0], bare)
    assert.deepEqual(Object.keys(out[0].content[0]), ['type', 'id', 'name'])
  })

  test('empty and whitespace-only text blocks are removed, the call is kept', () => {
    const c = toolCall('c1')
    const out = sanitizeSessionMessagesImages([assistant([text(''), text(' \n\t '), c, text('real')])], 'session:history')
    assert.deepEqual(out[0].content, [c, text('real')])
    assert.equal(out[0].content[0], c)
  })

  test('an assistant left with no content is dropped; an empty errored assistant is kept', () => {
    const errored = assistant([], { stopReason: 'error', errorMessage: 'overloaded' })
    const erroredBlank = assistant([text('')], { stopReason: 'error' })
    const input = [user('q'), assistant([text('  ')]), errored, erroredBlank, user('again')]
    const out = sanitizeSessionMessagesImages(input, 'session:history')
    assert.deepEqual(out, [input[0], errored, erroredBlank, input[4]])
    assert.equal(out[1], errored)
    assert.equal(out[2], erroredBlank)
  })

  test('non-assistant messages are unchanged, empty text included', () => {
    const input = [user([text('')]), user('plain'), { role: 'custom', content: [text('')] }, toolResult('c', '')]
    const out = sanitizeSessionMessagesImages(input, 'session:history')
    out.forEach((m, i) => assert.equal(m, input[i]))
  })

  test('a "msg_" thought_signature is stripped in full mode', () => {
    const out = sanitizeSessionMessagesImages([assistant([text('hi', { thought_signature: 'msg_123' })])], 'session:history')
    assert.deepEqual(out[0].content, [text('hi')])
  })

  test('base64-only thought signatures: invalid ones are stripped under both keys', () => {
    const input = [assistant([text('a', { thought_signature: 'not base64!' }), toolCall('c', 'read', {}, { thoughtSignature: 'AQID' })])]
    const out = sanitizeSessionMessagesImages(input, 'session:history', { sanitizeThoughtSignatures: { allowBase64Only: true, includeCamelCase: true } })
    assert.deepEqual(out[0].content, [text('a'), input[0].content[1]])
    assert.equal(out[0].content[1], input[0].content[1])
  })

  test('preserveSignatures keeps signatures and, with thinking present, empty text and block order', () => {
    const content = [thinking('t1', 'sig1'), text(''), toolCall('c1', 'read', {}, { thought_signature: 'msg_1' }), { type: 'redacted_thinking', data: 'x' }, text(' ')]
    const input = [assistant(content)]
    const out = sanitizeSessionMessagesImages(input, 'session:history', { preserveSignatures: true })
    assert.equal(out[0], input[0])
  })

  test('images-only mode leaves assistant text and signatures alone', () => {
    const input = [assistant([text(''), text('x', { thought_signature: 'msg_1' })])]
    const out = sanitizeSessionMessagesImages(input, 'session:history', { sanitizeMode: 'images-only' })
    assert.equal(out[0], input[0])
  })
})

describe('sanitizeSessionHistory: images', () => {
  for (const params of [
    { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
    { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  ]) {
    test(`images are sanitised for ${params.provider} with the "session:history" label`, () => {
      const input = [
        user([text('see'), image(WIDE), image('not base64!')]),
        assistant([toolCall('c1', 'screenshot', {})], { stopReason: 'toolUse', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 } }),
        toolResult('c1', 'x', { content: [image(SMALL_PNG, 'image/jpeg')] }),
      ]
      const out = runFrozen((m) => sanitizeSessionHistory({ ...params, messages: m }), input)
      assert.deepEqual(roles(out), ['user', 'assistant', 'toolResult'])
      assert.equal(out[0].content[0], input[0].content[0])
      assert.equal(out[0].content[1].mimeType, 'image/jpeg')
      assert.deepEqual(out[0].content[2], { type: 'text', text: '[session:history] omitted image payload: invalid base64' })
      assert.equal(out[2].content[0].mimeType, 'image/png')
      assert.equal(imagesOf(out).length, 2)
    })
  }
})
