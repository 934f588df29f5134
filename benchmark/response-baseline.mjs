// A plain-JS baseline of cleanResponse's job, written the way TypeScript agents do it today: a
// chain of regex passes, one per tool-call family, each run over the whole reply (the code cannot
// know the family in advance). Not a reference implementation: it covers the forms the benchmark
// generates, and response.mjs checks it finds the same calls and text as cleanResponse before
// timing either, so the comparison is of the same work.

/** Untyped XML-ish parameter values: booleans, null and numbers typed, the rest strings. */
function untyped(raw) {
  const t = raw.trim()
  if (t === 'true' || t === 'True') return true
  if (t === 'false' || t === 'False') return false
  if (t === 'null' || t === 'None') return null
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(t)) return Number(t)
  return raw
}

const unquote = (s) => s.trim().replace(/^["']|["']$/g, '')

export function jsCleanResponse(text) {
  const reasoning = []
  const calls = []
  const push = (name, args) => calls.push({ name, arguments: JSON.stringify(args ?? {}) })

  let content = text.replace(/<think>([\s\S]*?)(?:<\/think>|$)/g, (_, r) => {
    if (r.trim()) reasoning.push(r.trim())
    return ''
  })
  content = content.replace(/<minimax:tool_call>([\s\S]*?)(?:<\/minimax:tool_call>|$)/g, (_, body) => {
    for (const m of body.matchAll(/<invoke name=([^>]+)>([\s\S]*?)(?:<\/invoke>|$)/g)) {
      const args = {}
      for (const p of m[2].matchAll(/<parameter name=([^>]+)>([\s\S]*?)<\/parameter>/g)) args[unquote(p[1])] = untyped(p[2].trim())
      push(unquote(m[1]), args)
    }
    return ''
  })
  content = content.replace(/<tool_call>\s*(\{[\s\S]*?\})\s*<\/tool_call>/g, (all, json) => {
    try {
      const o = JSON.parse(json)
      push(o.name, o.arguments)
      return ''
    } catch {
      return all
    }
  })
  content = content.replace(/<tool_call>\s*<function=([^>\s]+)>([\s\S]*?)<\/function>\s*<\/tool_call>/g, (_, name, body) => {
    const args = {}
    for (const p of body.matchAll(/<parameter=([^>\s]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) args[p[1]] = untyped(p[2])
    push(name, args)
    return ''
  })
  content = content.replace(/<tool_call>([^<\n]+?)\s*((?:<arg_key>[\s\S]*?<\/arg_key>\s*<arg_value>[\s\S]*?<\/arg_value>\s*)*)<\/tool_call>/g, (_, name, body) => {
    const args = {}
    for (const p of body.matchAll(/<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g)) {
      let v
      try {
        v = JSON.parse(p[2].trim())
      } catch {
        v = p[2]
      }
      args[p[1].trim()] = v
    }
    push(name.trim(), args)
    return ''
  })
  content = content.replace(/<｜tool▁calls▁begin｜>([\s\S]*?)(?:<｜tool▁calls▁end｜>|$)/g, (_, body) => {
    for (const m of body.matchAll(/<｜tool▁call▁begin｜>(?:function<｜tool▁sep｜>([^\n]+)\n```json\n([\s\S]*?)\n```|([^<]+?)<｜tool▁sep｜>([\s\S]*?))<｜tool▁call▁end｜>/g)) {
      push((m[1] ?? m[3]).trim(), JSON.parse(m[2] ?? m[4]))
    }
    return ''
  })
  content = content.replace(/<\|tool_calls_section_begin\|>([\s\S]*?)(?:<\|tool_calls_section_end\|>|$)/g, (_, body) => {
    for (const m of body.matchAll(/<\|tool_call_begin\|>\s*functions\.([\w.-]+):(\d+)\s*<\|tool_call_argument_begin\|>([\s\S]*?)<\|tool_call_end\|>/g)) {
      push(m[1], JSON.parse(m[3]))
    }
    return ''
  })
  content = content.replace(/[ \t]*\n[ \t]*\n\s*/g, '\n\n').trim()
  return { content, toolCalls: calls, reasoning: reasoning.join('\n\n') }
}
