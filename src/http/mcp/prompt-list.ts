// Prompts: ready-made instructions a user can pick in their assistant. They name
// the tools to use and keep the human in charge of anything that sends. The list alone, without
// the SDK (./prompts.ts renders them): the server card lists them at start, while the SDK is
// loaded on the first /mcp/v1 request.

export const prompts = [
  {
    name: 'draft_campaign',
    title: 'Draft a campaign',
    description:
      'Plan and draft an email campaign (nothing is sent): audience, template and a draft to review.',
    arguments: [
      {
        name: 'goal',
        description: 'What the campaign should achieve, e.g. "announce the spring sale"',
        required: true,
      },
      {
        name: 'audience',
        description: 'Who should receive it: a list or segment name, or a description',
        required: false,
      },
      { name: 'tone', description: 'Voice of the copy, e.g. "friendly", "formal"', required: false },
    ],
  },
  {
    name: 'explain_deliverability',
    title: 'Explain a campaign’s deliverability',
    description: 'Explain how a campaign was delivered (bounces, opens, clicks) and what to improve.',
    arguments: [{ name: 'campaign_id', description: 'The campaign (UUID or cmp_… id)', required: true }],
  },
] as const
