const MAX_SNIPPET = 200

// "On <date> <name> <address> wrote:" in the languages seen most; mail clients wrap it when the
// name and address are long (Gmail puts "wrote:" on a line of its own), so it is matched over
// up to three lines.
const ATTRIBUTION = [
  /^On\s.+\swrote:$/i,
  /^Le\s.+\sa écrit\s*:$/i,
  /^Am\s.+\sschrieb\s.+:$/i,
  /^El\s.+\sescribió:$/i,
]
const ATTRIBUTION_START = /^(On|Le|Am|El)\s/i

const isAttribution = (lines: string[], i: number) => {
  if (!ATTRIBUTION_START.test(lines[i]!)) return false
  for (let n = 1; n <= 3 && i + n <= lines.length; n++) {
    const joined = lines.slice(i, i + n).join(' ')
    if (ATTRIBUTION.some((re) => re.test(joined))) return true
  }
  return false
}

/**
 * The first lines of what a reply newly says: quoted history ("> …", "On … wrote:", Outlook's
 * "-----Original Message-----" and "From:" blocks) and signatures ("-- ") are cut off.
 */
export function snippetOf(text: string): string {
  const raw = text.replace(/\r\n?/g, '\n').split('\n')
  const lines = raw.map((l) => l.trim())
  const kept: string[] = []
  for (const [i, t] of lines.entries()) {
    if (/^>/.test(t)) break
    if (isAttribution(lines, i)) break
    if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(t) || /^_{5,}$/.test(t)) break
    if (/^From:\s/i.test(t) && kept.length > 0) break
    if (raw[i] === '-- ' || t === '--') break
    kept.push(t)
  }
  const joined = kept.join(' ').replace(/\s+/g, ' ').trim()
  return joined.length > MAX_SNIPPET ? `${joined.slice(0, MAX_SNIPPET - 1)}…` : joined
}
