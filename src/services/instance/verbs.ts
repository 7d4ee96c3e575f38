import { Type as t } from '@sinclair/typebox'
import { defineVerb } from '../verbs/define'
import { strict } from '../verbs/schemas'
import { protectedResourceMetadata } from './discovery'
import { health } from './health'

const NoInput = t.Object({}, strict)

export const healthVerb = defineVerb({
  name: 'instance.health',
  scope: 'public',
  input: NoInput,
  mutates: false,
  run: async (ctx) => await health(ctx),
})

export const protectedResourceVerb = defineVerb({
  name: 'instance.protected-resource',
  scope: 'public',
  input: NoInput,
  mutates: false,
  run: (ctx) => protectedResourceMetadata(ctx),
})

/** The MCP endpoint's own document: the same servers and scopes, resource `/mcp/v1`. */
export const mcpProtectedResourceVerb = defineVerb({
  name: 'instance.mcp-protected-resource',
  scope: 'public',
  input: NoInput,
  mutates: false,
  run: (ctx) => protectedResourceMetadata(ctx, '/mcp/v1'),
})
