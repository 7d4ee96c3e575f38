// Tracking, unsubscribe and preference-centre links carry their authority in the path: whoever holds the token can
// unsubscribe its recipient or add opens and clicks. The access log (kept, shipped, shared) names
// such a route by its template, never the token. Query strings are never logged at all.

const TOKEN_ROUTES = ['/t/o/', '/t/c/', '/u/', '/p/'] as const

/** The path as the access log writes it. */
export function loggedPath(path: string): string {
  // Most paths are /api/…, /admin/… or /mcp: one character rules them out.
  const second = path.charCodeAt(1)
  // ESP feedback and inbound SMS URLs name their client by a token too: /hooks/{provider}/{token},
  // /hooks/twilio/sms/{token}.
  if (second === 104 /* h */ && path.startsWith('/hooks/'))
    return path.replace(/^(\/hooks\/(?:twilio\/sms|[^/]*)\/).*$/, '$1:token')
  if (second !== 116 /* t */ && second !== 117 /* u */ && second !== 112 /* p */) return path
  for (const prefix of TOKEN_ROUTES) if (path.startsWith(prefix)) return `${prefix}:token`
  return path
}
