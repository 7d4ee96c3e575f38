// Render and DKIM benchmark (issue 4): `bun run test/bench/render.ts`
// Bar: a typical personalised email (≈2 KB Liquid HTML, 6 variables, 5 links, CSS inlined once
// per template) ≥ 5,000 renders/s on one core. Also reports the cold compile and the DKIM
// signing cost per message (2048-bit RSA, relaxed/relaxed, sha256).
import { createPrivateKey } from 'node:crypto'
import MailComposer from 'nodemailer/lib/mail-composer'
import { generateDkimKey } from '../../src/lib/dkim-key'
import { DKIM_HEADER_FIELDS, signMessage } from '../../src/services/domains/dkim'
import { compileTemplate, type RenderableTemplate, renderCompiled } from '../../src/services/templates/render'
import { HTML, TEXT } from './fixtures'

const NAMES = ['Ann', 'Bo', 'Chidi', 'Dana', 'Émile', 'Farah', 'Gus', 'Hana']
const vars = (i: number) => ({
  contact: {
    first_name: NAMES[i % NAMES.length],
    email: `person${i}@customer.example`,
    company: `Company ${i % 97}`,
    custom: { plan: i % 3 ? 'pro' : 'team' },
  },
  client: { name: 'Acme' },
  campaign: { id: 'cmp_0193a1b2c3d4' },
  unsubscribe_url: `https://herald.example/u/${i.toString(36)}`,
})

function measure(label: string, seconds: number, fn: (i: number) => void) {
  for (let i = 0; i < 2000; i++) fn(i) // warm-up (JIT)
  let n = 0
  const start = performance.now()
  const until = start + seconds * 1000
  while (performance.now() < until) for (let k = 0; k < 100; k++) fn(n++)
  const ms = performance.now() - start
  const perSecond = (n / ms) * 1000
  console.log(
    `${label.padEnd(58)} ${Math.round(perSecond).toLocaleString('en').padStart(9)} /s  ${((ms * 1000) / n).toFixed(1).padStart(7)} µs/op`,
  )
  return perSecond
}

let version = 0
const template = (parts: Partial<RenderableTemplate>): RenderableTemplate => ({
  id: 'bench',
  updatedAt: ++version,
  channel: 'email',
  subject: 'Spring offers for {{ contact.first_name | default: "you" }}',
  bodyHtml: HTML,
  bodyText: null,
  ...parts,
})

console.log(
  `Liquid HTML: ${HTML.length} bytes, 5 links, 6 distinct variables; Bun ${Bun.version}, one core\n`,
)

const coldStart = performance.now()
const coldRuns = 50
for (let i = 0; i < coldRuns; i++) compileTemplate(template({}))
console.log(
  `${'compile (CSS inlining + Liquid parse), once per template'.padEnd(58)} ${(((performance.now() - coldStart) * 1000) / coldRuns).toFixed(0).padStart(21)} µs/op`,
)

const withText = compileTemplate(template({ bodyText: TEXT }))
const derived = compileTemplate(template({}))
const bar = measure('render: subject + html + own text part', 3, (i) => renderCompiled(withText, vars(i)))
measure('render: subject + html + text derived from html', 3, (i) => renderCompiled(derived, vars(i)))
const missing = new Set<string>()
measure('render with missing-variable tracking (preview)', 2, (i) =>
  renderCompiled(withText, vars(i), missing),
)

const sample = renderCompiled(withText, vars(1))
const key = await generateDkimKey()
const dkim = {
  domainName: 'news.example',
  keySelector: 'herald202611',
  privateKey: createPrivateKey(key.privateKeyPem),
  headerFieldNames: DKIM_HEADER_FIELDS,
}
const raw = await new MailComposer({
  from: 'Acme <offers@news.example>',
  to: 'ann@customer.example',
  subject: sample.subject ?? '',
  html: sample.body_html ?? '',
  text: sample.body_text ?? '',
  headers: {
    'List-Unsubscribe': '<https://herald.example/u/x>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
})
  .compile()
  .build()
for (let i = 0; i < 50; i++) await signMessage(raw, dkim)
const signRuns = 1000
const signStart = performance.now()
for (let i = 0; i < signRuns; i++) await signMessage(raw, dkim)
const signUs = ((performance.now() - signStart) * 1000) / signRuns
console.log(
  `${`DKIM sign (2048-bit RSA, ${raw.length}-byte message)`.padEnd(58)} ${Math.round(1e6 / signUs)
    .toLocaleString('en')
    .padStart(9)} /s  ${signUs.toFixed(1).padStart(7)} µs/op`,
)

console.log(
  `\nbar: ≥ 5,000 renders/s → ${bar >= 5000 ? 'met' : 'NOT met'} (${Math.round(bar).toLocaleString('en')}/s)`,
)
