import type { Json } from '../openapi/schemas'
import { prompts } from './prompt-list'
import { type ResourceCaller, readResource } from './resources'
import { ProtocolError, ProtocolErrorCode } from './sdk'

// Prompts, listed in ./prompt-list.ts: getPrompt renders one for an assistant.

export { prompts }

const user = (text: string) => ({ role: 'user', content: { type: 'text', text } })

function draftCampaign(args: Record<string, string>): Json {
  const lines = [
    `Draft an email campaign in Herald. Goal: ${args.goal}.`,
    args.audience ? `Audience: ${args.audience}.` : 'Ask me who should receive it if it is not clear.',
    args.tone ? `Tone: ${args.tone}.` : '',
    '',
    'Steps:',
    '1. Find the audience with list_lists and list_segments (a segment can be created with create_segment if none fits; show me its rules first).',
    '2. Look at list_templates for one to reuse; otherwise write a subject, body_html and body_text (Liquid: {{ contact.first_name | default: "there" }}; keep {{ unsubscribe_url }} in the footer) and save it with create_template.',
    '3. Render it with preview_template for one real contact and show me the result.',
    '4. Create the campaign with create_campaign (it stays a draft) and give me its id, audience size and subject.',
    'Do not call launch_campaign or send_message: I will review the draft and launch it myself.',
  ]
  return { description: 'Draft a campaign', messages: [user(lines.filter((l) => l !== '').join('\n'))] }
}

async function explainDeliverability(c: ResourceCaller, args: Record<string, string>): Promise<Json> {
  const uri = `herald://campaigns/${args.campaign_id}/stats`
  const stats = (await readResource(c, uri)) as { contents: Json[] }
  const text = [
    'Explain the deliverability of this Herald campaign to me in plain words.',
    'Its stats are attached. Compare delivered, bounced, opened and clicked with the audience size; open and click rates are unique opens (or clicks) over delivered; machine_opened counts opens by mail privacy proxies and is not in the open rate.',
    'Then check what could be improved: the sending domain’s DNS (list_domains, get_domain: DKIM, SPF and DMARC), suppressions (list_suppressions) and the messages that bounced or failed (list_messages with campaign_id and status).',
    'Finish with the three most useful changes, most important first.',
  ].join('\n')
  return {
    description: 'Explain a campaign’s deliverability',
    messages: [user(text), { role: 'user', content: { type: 'resource', resource: stats.contents[0] } }],
  }
}

export async function getPrompt(
  c: ResourceCaller,
  name: string,
  args: Record<string, string> = {},
): Promise<Json> {
  const prompt = prompts.find((p) => p.name === name)
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt ${name}`)
  for (const a of prompt.arguments)
    if (a.required && !args[a.name])
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} needs the argument ${a.name}`)
  return name === 'draft_campaign' ? draftCampaign(args) : await explainDeliverability(c, args)
}
