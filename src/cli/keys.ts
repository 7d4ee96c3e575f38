import type { Flags } from '../config'
import { API_KEY_TIERS, type ApiKeyTier } from '../lib/enums'
import { idForms, parseId } from '../lib/ids'
import { isScope } from '../lib/scopes'
import { createApiKeyVerb, listApiKeysVerb, revokeApiKeyVerb } from '../services/api-keys/verbs'
import { everyPage, invokeAsConsole } from './console-verbs'
import { withOfflineContextAsync } from './offline'
import { UsageError } from './usage'

export interface KeyFlags extends Flags {
  name?: string
  scopes?: string
  client?: string
  tier?: string
  expires?: string
  json?: boolean
}

export async function keysCommand(sub: string | undefined, args: string[], flags: KeyFlags): Promise<void> {
  if (sub === 'create') {
    if (!flags.name) throw new UsageError('keys create needs --name')
    if (!flags.scopes) throw new UsageError('keys create needs --scopes (comma-separated, e.g. admin:*)')
    const scopes = flags.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const bad = scopes.filter((s) => !isScope(s))
    if (bad.length) throw new UsageError(`unknown scope(s): ${bad.join(', ')}`)
    if (flags.tier && !(API_KEY_TIERS as readonly string[]).includes(flags.tier))
      throw new UsageError(`--tier must be one of ${API_KEY_TIERS.join(', ')}`)
    const created = await withOfflineContextAsync(flags, (ctx) =>
      invokeAsConsole(createApiKeyVerb, ctx, {
        name: flags.name!,
        scopes,
        client_id: flags.client ?? null,
        tier: flags.tier as ApiKeyTier | undefined,
        expires_at: flags.expires ?? null,
      }),
    )
    if (flags.json) console.log(JSON.stringify({ id: created.id, key: created.key }))
    else
      console.log(
        `Created key ${created.id} (${created.scopes.join(',')}). Store it now, it is not shown again:\n${created.key}`,
      )
    return
  }
  if (sub === 'list') {
    const keys = await withOfflineContextAsync(flags, (ctx) => everyPage(ctx, listApiKeysVerb))
    if (flags.json) console.log(JSON.stringify(keys))
    else
      for (const k of keys)
        console.log(
          [
            k.id,
            k.prefix,
            k.name,
            k.scopes.join(','),
            k.client_id ?? 'platform-wide',
            k.revoked_at ? 'revoked' : 'active',
          ].join('\t'),
        )
    return
  }
  if (sub === 'revoke') {
    if (args.length === 0) throw new UsageError('keys revoke needs the key id')
    if (args.length > 1) throw new UsageError('keys revoke takes one key id')
    // A given id that is not an id at all is named as such, not reported missing.
    const id = parseId(args[0]!)
    if (!id) throw new UsageError(`"${args[0]}" is not a key id (${idForms('apiKey')})`)
    await withOfflineContextAsync(flags, (ctx) => invokeAsConsole(revokeApiKeyVerb, ctx, { id }))
    console.log(`Revoked key ${id}`)
    return
  }
  throw new UsageError(`unknown keys command: ${sub ?? '(none)'}`)
}
