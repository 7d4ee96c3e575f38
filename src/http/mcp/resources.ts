import type { Actor } from '../../services/actors/actor'
import type { Json } from '../openapi/schemas'
import type { Pipeline } from '../rest/pipeline'
import { type Outcome, runTool } from './call'
import { JSON_TYPE, resourceTemplates, TEMPLATES } from './resource-list'
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from './sdk'
import type { ToolCatalog } from './tools'

// Resources: a campaign's stats and a template, read through the same operations
// as their tools (get_campaign_stats, get_template), so scope and tenancy are the REST ones.

export { resourceTemplates }

export interface ResourceCaller {
  p: Pipeline
  catalog: ToolCatalog
  actor: Actor
  requestId: string
}

async function run(c: ResourceCaller, tool: string, args: Json): Promise<Outcome> {
  return await runTool(c.p, c.catalog.byName.get(tool)!, args, c.actor, c.requestId)
}

/** Concrete resources: the caller's newest templates and campaigns (one page each). */
export async function listResources(c: ResourceCaller): Promise<Json[]> {
  const out: Json[] = []
  const templates = await run(c, 'list_templates', { limit: 50 })
  if (templates.ok)
    for (const t of templates.body.data as Json[])
      out.push({ uri: `herald://templates/${t.id}`, name: `template: ${t.name}`, mimeType: JSON_TYPE })
  const campaigns = await run(c, 'list_campaigns', { limit: 50 })
  if (campaigns.ok)
    for (const k of campaigns.body.data as Json[])
      out.push({ uri: `herald://campaigns/${k.id}/stats`, name: `stats: ${k.name}`, mimeType: JSON_TYPE })
  return out
}

export async function readResource(c: ResourceCaller, uri: string): Promise<Json> {
  for (const t of TEMPLATES) {
    const m = t.pattern.exec(uri)
    if (!m) continue
    const outcome = await run(c, t.tool, { id: decodeURIComponent(m[1]!) })
    if (outcome.ok)
      return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(outcome.body.data) }] }
    const error = (outcome.body as { error: { code: string; message: string } }).error
    if (error.code === 'NOT_FOUND') throw new ResourceNotFoundError(uri, `No such resource: ${uri}`)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${error.code}: ${error.message}`, outcome.body)
  }
  throw new ResourceNotFoundError(
    uri,
    `Unknown resource ${uri}; Herald serves ${resourceTemplates.map((t) => t.uriTemplate).join(' and ')}`,
  )
}
