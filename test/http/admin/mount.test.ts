import { describe, expect, test } from 'bun:test'
import { portalPlugin } from '../../../src/http/admin/plugin'
import { createTestApp } from '../../helpers/app'

// The portal must add nothing to the REST hot path: two routes of its own under /admin and no
// lifecycle hook (a global onRequest/onBeforeHandle would run for every /api/v1 request).

const t = await createTestApp()

describe('portal mount', () => {
  test('two routes, no hooks', () => {
    const plugin = portalPlugin(t.ctx)
    expect(plugin.routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['ALL /admin', 'ALL /admin/*'])
    const hooks = Object.entries(plugin.event).filter(([, list]) => (list as unknown[] | undefined)?.length)
    expect(hooks).toEqual([])
  })

  test('API answers carry none of the portal headers; /admin-looking API paths are not the portal', async () => {
    const api = await t.call('GET', `/api/v1/clients/${t.defaultClientId}`)
    expect(api.status).toBe(200)
    expect(api.headers.get('content-security-policy')).toBeNull()
    expect(api.headers.get('set-cookie')).toBeNull()
    const admin = await t.call('GET', '/admin', { key: null })
    expect(admin.status).toBe(303)
    expect(admin.headers.get('content-security-policy')).not.toBeNull()
    expect((await t.call('GET', '/administrator', { key: null })).status).toBe(404)
  })
})
