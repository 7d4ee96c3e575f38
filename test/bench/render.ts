// Render and DKIM benchmark (issue 4): `bun run test/bench/render.ts`
// Bar: a typical personalised email (≈2 KB Liquid HTML, 6 variables, 5 links, CSS inlined once
// per template) ≥ 5,000 renders/s on one core. Also reports the cold compile and the DKIM
// signing cost per message (2048-bit RSA, relaxed/relaxed, sha256).
import { createPrivateKey } from 'node:crypto'
import MailComposer from 'nodemailer/lib/mail-composer'
import { generateDkimKey } from '../../src/lib/dkim-key'
import { DKIM_HEADER_FIELDS, signMessage } from '../../src/services/domains/dkim'
import { compileTemplate, type RenderableTemplate, renderCompiled } from '../../src/services/templates/render'

const HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
body { font-family: Helvetica, Arial, sans-serif; color: #222222; background: #f4f4f4; }
.wrap { max-width: 600px; margin: 0 auto; background: #ffffff; padding: 24px; }
h1 { font-size: 22px; color: #111111; } p { line-height: 1.5; font-size: 15px; }
a { color: #1a56db; } .btn { background: #1a56db; color: #ffffff; padding: 10px 18px; border-radius: 4px; }
.foot { font-size: 12px; color: #888888; }
@media (max-width: 600px) { .wrap { padding: 12px; } }
</style></head><body><div class="wrap">
<h1>Hello {{ contact.first_name | default: "there" }},</h1>
<p>Thanks for being a {{ contact.custom.plan | default: "free" }} customer at {{ contact.company }}. Spring is here and
we have put together a few things we think you will like. Everything below is picked for teams like yours.</p>
<p><a class="btn" href="https://shop.example.com/spring?utm_campaign=spring-2026">See the spring collection</a></p>
<p>New this month: <a href="https://shop.example.com/new">new arrivals</a>, <a href="https://shop.example.com/sale">the sale</a>
and <a href="https://blog.example.com/guides/spring">our spring guide</a>. Free shipping on orders over 50 EUR until Friday.</p>
<p>If you have questions, just reply to this email — a real person on our team reads every message and will get back to
you within one working day. We are always happy to help you get the most out of your subscription.</p>
<p>Our spring guide covers planning a season of campaigns, choosing the right audience for each message, and
measuring what worked. It takes ten minutes to read and comes with a checklist you can share with your colleagues. Readers tell
us the section on timing alone was worth it, so we have expanded it with examples from this year.</p>
<p>Best regards,<br>The {{ client.name }} team</p>
<p class="foot">You receive this because you subscribed with {{ contact.email }}.
<a href="{{ unsubscribe_url }}">Unsubscribe</a> at any time.</p>
</div></body></html>`

const TEXT = `Hello {{ contact.first_name | default: "there" }},
Thanks for being a {{ contact.custom.plan | default: "free" }} customer at {{ contact.company }}.
See the spring collection: https://shop.example.com/spring?utm_campaign=spring-2026
Unsubscribe: {{ unsubscribe_url }}`

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
