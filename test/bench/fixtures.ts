// The typical personalised email of the performance bars: ~2 KB of Liquid HTML, 6 variables,
// 5 links, a <style> block to inline. Shared by the render and campaign benchmarks.

export const HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
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

export const TEXT = `Hello {{ contact.first_name | default: "there" }},
Thanks for being a {{ contact.custom.plan | default: "free" }} customer at {{ contact.company }}.
See the spring collection: https://shop.example.com/spring?utm_campaign=spring-2026
Unsubscribe: {{ unsubscribe_url }}`
