// The resource templates alone, without the SDK (./resources.ts reads them): the server card
// lists them at start, while the SDK is loaded on the first /mcp/v1 request.

export const JSON_TYPE = 'application/json'

export const TEMPLATES = [
  {
    uriTemplate: 'herald://campaigns/{id}/stats',
    name: 'campaign_stats',
    title: 'Campaign stats',
    description: 'Delivery and engagement counts and rates of one campaign (same as get_campaign_stats).',
    mimeType: JSON_TYPE,
    tool: 'get_campaign_stats',
    pattern: /^herald:\/\/campaigns\/([^/]+)\/stats$/,
  },
  {
    uriTemplate: 'herald://templates/{id}',
    name: 'template',
    title: 'Template',
    description: 'One message template: subject and bodies (Liquid) and channel (same as get_template).',
    mimeType: JSON_TYPE,
    tool: 'get_template',
    pattern: /^herald:\/\/templates\/([^/]+)$/,
  },
] as const

export const resourceTemplates = TEMPLATES.map(({ tool: _t, pattern: _p, ...rest }) => rest)
