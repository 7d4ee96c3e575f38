const MAX_SNIPPET = 200

/**
 * The first lines of what a reply newly says: quoted history ("> …", "On … wrote:", Outlook's
 * "-----Original Message-----" and "From:" blocks) and signatures ("-- ") are cut off.
 */
export function snippetOf(text: string): string {
  const kept: string[] = []
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const t = line.trim()
    if (/^>/.test(t)) break
    if (/^On .+wrote:$/i.test(t) || /^Le .+a écrit\s*:$/i.test(t)) break
    if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(t) || /^_{5,}$/.test(t)) break
    if (/^From:\s/i.test(t) && kept.length > 0) break
    if (line === '-- ' || t === '--') break
    kept.push(t)
  }
  const joined = kept.join(' ').replace(/\s+/g, ' ').trim()
  return joined.length > MAX_SNIPPET ? `${joined.slice(0, MAX_SNIPPET - 1)}…` : joined
}
