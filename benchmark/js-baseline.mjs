// A plain-JS hygiene pass, written the way a TypeScript agent writes one: the floor of what V8
// does with no boundary at all. It covers the transcript-wide work of the pass (strict id
// rewriting with an occurrence-aware map, dropping thinking for Claude, malformed-call checks,
// pairing, `details` stripping, usage checks) without OpenClaw's plugin and logging overhead, so
// it is faster than OpenClaw's own code; the benchmark prints both comparisons.

const NAME_RE = /^[A-Za-z0-9_-]+$/

function strictId(id) {
  const s = id.replace(/[^a-zA-Z0-9]/g, '')
  return s.length > 0 ? s.slice(0, 40) : 'sanitizedtoolid'
}

export function jsPass(messages, { dropThinking = false, sanitizeIds = false } = {}) {
  const ids = new Map()
  const rename = (id) => {
    let v = ids.get(id)
    if (v === undefined) {
      v = strictId(id)
      ids.set(id, v)
    }
    return v
  }
  const out = []
  for (const m of messages) {
    if (!m || typeof m !== 'object') {
      out.push(m)
      continue
    }
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      let changed = false
      const content = []
      for (const b of m.content) {
        if (dropThinking && b && b.type === 'thinking') {
          changed = true
          continue
        }
        if (b && (b.type === 'toolCall' || b.type === 'toolUse' || b.type === 'functionCall')) {
          if (b.arguments == null && b.input == null) {
            changed = true
            continue
          }
          if (typeof b.name !== 'string' || !NAME_RE.test(b.name.trim())) {
            changed = true
            continue
          }
          if (sanitizeIds && typeof b.id === 'string') {
            const id = rename(b.id)
            if (id !== b.id) {
              content.push({ ...b, id })
              changed = true
              continue
            }
          }
        }
        content.push(b)
      }
      const u = m.usage
      const usageOk = u && typeof u.input === 'number' && typeof u.output === 'number' && typeof u.totalTokens === 'number'
      out.push(changed || !usageOk ? { ...m, content, usage: usageOk ? u : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 } } : m)
    } else if (m.role === 'toolResult') {
      let next = m
      if (sanitizeIds && typeof m.toolCallId === 'string') {
        const id = rename(m.toolCallId)
        if (id !== m.toolCallId) next = { ...next, toolCallId: id }
      }
      if ('details' in next) {
        if (next === m) next = { ...m }
        delete next.details
      }
      out.push(next)
    } else {
      out.push(m)
    }
  }
  // Pairing: every call answered right after its assistant turn.
  const results = new Map()
  for (const m of out) if (m && m.role === 'toolResult') results.set(m.toolCallId, m)
  const paired = []
  for (const m of out) {
    if (m && m.role === 'toolResult') continue
    paired.push(m)
    if (m && m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b && b.type === 'toolCall') {
          paired.push(results.get(b.id) || { role: 'toolResult', toolCallId: b.id, toolName: b.name, content: [{ type: 'text', text: 'missing' }], isError: true, timestamp: m.timestamp })
        }
      }
    }
  }
  return paired
}
