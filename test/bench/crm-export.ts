// A deterministic CRM-style contact export, as people actually upload them (issue 15): phones in
// human formats with country codes (US, UK, German and French, several spellings each, some
// blank, ~0.5 % invalid), ~10 % mixed-case emails over ~1,000 domains, company names with commas
// (quoted), and two custom columns (plan, seats), the README import's column set. Row i (1-based)
// is the same in every run, so a bench can insert the same rows straight into SQLite to compare.
//
// `bun run test/bench/crm-export.ts --rows N [--out file.csv] [--check]` writes a file; --check
// verifies every phone's expected verdict against libphonenumber-js/max instead.

export const CRM_HEADER = 'email,first_name,last_name,company,phone,plan,seats'

const FIRST = `James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard
  Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony
  Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth
  Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ronald Stephanie Edward Rebecca
  Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy Nicholas Angela Eric Shirley Jonathan
  Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole Brandon Helen Benjamin Samantha Samuel
  Katherine Gregory Christine Alexander Debra Frank Rachel Patrick Carolyn Raymond Janet Jack Catherine
  Dennis Maria Jerry Heather Tyler Diane Aaron Ruth Jose Julie Adam Olivia Chloé Léa Jürgen Zoë`.split(/\s+/)
const LAST = `Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
  Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez
  Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green
  Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz
  Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan
  Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood
  James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster
  Jimenez O'Brien Müller Schulz Dubois Okafor`.split(/\s+/)
const CO_A = `Blue North Silver Red Green Bright Swift Iron Stone Clear Gold Deep High True Bold Open Pine
  Oak Sun Star Sky Sea Fox Wolf Bear Lake Snow Rock Cloud Maple`.split(/\s+/)
const CO_B = `peak wind field bridge river point gate wave forge works path crest light line stream ridge
  vale view port harbor haven mark mount shore side spring wood well yard dale brook bay cliff cove
  crown falls glen grove hollow land`.split(/\s+/)
const CO_KIND = 'Labs Systems Group Partners Analytics Logistics Health Studio Works Holdings'.split(' ')
/** Legal suffixes written after a comma, which makes the company field quoted in the CSV. */
const CO_COMMA = ['Inc.', 'LLC', 'Ltd.', 'GmbH', 'SARL', 'S.A.', 'Co.']
const TLD = ['com', 'com', 'com', 'io', 'co.uk', 'de', 'fr', 'net']
const US_AREA = '212 213 305 312 415 503 512 617 646 702 713 718 206 303 404 469 602 619 650 917'.split(' ')
const PLANS = [
  ['free', 45],
  ['starter', 25],
  ['pro', 20],
  ['enterprise', 10],
] as const
const DOMAINS = 1000

/** A 32-bit hash of (i, salt): cheap, deterministic, well mixed. */
export function mix(i: number, salt: number): number {
  let x = (Math.imul(i, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d)
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b)
  return (x ^ (x >>> 16)) >>> 0
}
const pick = <T>(list: readonly T[], i: number, salt: number): T => list[mix(i, salt) % list.length]!
const digits = (i: number, salt: number, n: number) => String(mix(i, salt) % 10 ** n).padStart(n, '0')

export interface CrmRow {
  /** As written in the file (mixed case in ~10 % of rows). */
  email: string
  first: string
  last: string
  /** Unquoted; `csvLine` quotes it when it holds a comma. */
  company: string
  /** As written in the file ('' when blank). */
  phone: string
  /** What the import should store: E.164, null when blank, 'invalid' when the row must be refused. */
  e164: string | null | 'invalid'
  plan: string
  seats: string
}

/** Domain d of ~1,000: a company-like name and a TLD. */
function domain(d: number): string {
  return `${pick(CO_A, d, 11).toLowerCase()}${pick(CO_B, d, 12)}.${pick(TLD, d, 13)}`
}

/** [as written, E.164] for a valid phone of row i, in one of the country's usual spellings. */
function validPhone(i: number): [string, string] {
  const country = mix(i, 20) % 100
  const style = mix(i, 21) % 4
  if (country < 50) {
    const area = pick(US_AREA, i, 22)
    const exchange = String(200 + (mix(i, 23) % 800)).replace(/^(\d)11$/, '$122') // no N11 codes
    const line = digits(i, 24, 4)
    const e164 = `+1${area}${exchange}${line}`
    const shown = [
      `+1 (${area}) ${exchange}-${line}`,
      `+1 ${area}-${exchange}-${line}`,
      `+1.${area}.${exchange}.${line}`,
      e164,
    ][style]!
    return [shown, e164]
  }
  if (country < 70) {
    // London (20 7xxx / 20 8xxx) or a mobile (74xx, 75xx, 78xx).
    if (style < 2) {
      const n = `${7 + (mix(i, 25) % 2)}${digits(i, 26, 3)}${digits(i, 27, 4)}`
      return [style === 0 ? `+44 20 ${n.slice(0, 4)} ${n.slice(4)}` : `+44 (0)20 ${n}`, `+4420${n}`]
    }
    const n = `7${pick([4, 5, 8], i, 25)}${digits(i, 26, 2)}${digits(i, 27, 6)}`
    return [style === 2 ? `+44 ${n.slice(0, 4)} ${n.slice(4)}` : `+44${n}`, `+44${n}`]
  }
  if (country < 85) {
    // Berlin landline (30 + 7 digits) or a mobile (151 / 152 / 170 / 176 + 8 digits).
    if (style < 2) {
      const n = `${2 + (mix(i, 28) % 8)}${digits(i, 29, 6)}`
      return [style === 0 ? `+49 30 ${n}` : `+49 (0)30 ${n}`, `+4930${n}`]
    }
    const pre = pick(['151', '152', '170', '176'], i, 30)
    const n = `${1 + (mix(i, 28) % 9)}${digits(i, 29, 7)}`
    return [style === 2 ? `+49 ${pre} ${n}` : `+49-${pre}-${n}`, `+49${pre}${n}`]
  }
  // France: mobile (6 / 7) or Paris landline (1), in pairs.
  const lead = pick(['6', '7', '1'], i, 31)
  const second =
    lead === '7' ? 3 + (mix(i, 33) % 6) : lead === '6' ? pick([1, 2, 4, 5], i, 33) : mix(i, 33) % 10
  const n = `${lead}${second}${digits(i, 32, 7)}`
  const pairs = n.slice(1).match(/../g)!.join(' ')
  return [style < 3 ? `+33 ${lead} ${pairs}` : `+33${n}`, `+33${n}`]
}

/** An invalid phone for row i: too short, too long, no country code, impossible prefix. */
function invalidPhone(i: number): string {
  const area = pick(US_AREA, i, 22)
  return [
    `+1 (${area}) 555-01`,
    `+1 (055) 555-${digits(i, 24, 4)}`,
    `${area}-555-${digits(i, 24, 4)}`,
    `+44 20 7946`,
    `+33 6 12 34 56 78 90`,
    `+49 30 12`,
    `+999 ${digits(i, 24, 7)}`,
    `+1 (${area}) 555-0132-${digits(i, 24, 3)}`,
  ][mix(i, 41) % 8]!
}

export function crmRow(i: number): CrmRow {
  const first = pick(FIRST, i, 1)
  const last = pick(LAST, i, 2)
  const dom = domain(mix(i, 10) % DOMAINS)
  const local = `${first}.${last}${i}`.normalize('NFD').replace(/[^A-Za-z0-9.]/g, '')
  const mixedCase = mix(i, 14) % 10 === 0
  const email = mixedCase
    ? `${local}@${dom.charAt(0).toUpperCase()}${dom.slice(1)}`
    : `${local}@${dom}`.toLowerCase()
  const a = pick(CO_A, i, 3)
  const b = pick(CO_B, i, 4)
  const kind = pick(CO_KIND, i, 5)
  const company = mix(i, 6) % 3 === 0 ? `${a}${b} ${kind}, ${pick(CO_COMMA, i, 7)}` : `${a}${b} ${kind}`
  const roll = mix(i, 40) % 1000
  let phone: string
  let e164: CrmRow['e164']
  if (roll < 5) {
    phone = invalidPhone(i)
    e164 = 'invalid'
  } else if (roll < 55) {
    phone = ''
    e164 = null
  } else [phone, e164] = validPhone(i)
  const planRoll = mix(i, 8) % 100
  let acc = 0
  let plan = 'free'
  for (const [name, share] of PLANS) {
    acc += share
    if (planRoll < acc) {
      plan = name
      break
    }
  }
  return { email, first, last, company, phone, e164, plan, seats: String(1 + (mix(i, 9) % 250)) }
}

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)

export function csvLine(r: CrmRow): string {
  return `${r.email},${quote(r.first)},${quote(r.last)},${quote(r.company)},${quote(r.phone)},${r.plan},${r.seats}\n`
}

/** Rows 1..n whose phone the import must refuse. */
export function invalidRows(n: number): number[] {
  const out: number[] = []
  for (let i = 1; i <= n; i++) if (mix(i, 40) % 1000 < 5) out.push(i)
  return out
}

/** Streams rows 1..n to `file` (never whole in memory); returns its size in bytes. */
export async function writeCrmCsv(file: string, rows: number): Promise<number> {
  const writer = Bun.file(file).writer({ highWaterMark: 1 << 20 })
  writer.write(`${CRM_HEADER}\n`)
  let chunk = ''
  for (let i = 1; i <= rows; i++) {
    chunk += csvLine(crmRow(i))
    if (i % 10_000 === 0) {
      writer.write(chunk)
      chunk = ''
      await writer.flush()
    }
  }
  writer.write(chunk)
  await writer.end()
  return Bun.file(file).size
}

if (import.meta.main) {
  const { parseArgs } = await import('node:util')
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      rows: { type: 'string', default: '10000' },
      out: { type: 'string' },
      check: { type: 'boolean' },
    },
  })
  const rows = Number(values.rows)
  if (values.check) {
    const { parsePhoneNumberFromString } = await import('libphonenumber-js/max')
    let wrong = 0
    for (let i = 1; i <= rows; i++) {
      const r = crmRow(i)
      if (r.e164 === null) continue
      const p = parsePhoneNumberFromString(r.phone)
      const got = p?.isValid() ? p.number : 'invalid'
      if (got !== r.e164 && wrong++ < 20) console.error(`row ${i}: ${r.phone} → ${got}, expected ${r.e164}`)
    }
    console.log(`${rows} rows, ${wrong} phones disagree with libphonenumber-js/max`)
    process.exit(wrong ? 1 : 0)
  }
  if (!values.out) throw new Error('--out file.csv or --check')
  console.log(`${await writeCrmCsv(values.out, rows)} bytes`)
}
