import type { TestApp } from './app'

// Setting up a portal test's records over REST (quicker than through the pages, and the pages
// under test stay the only thing a browser drives).

/**
 * A REST caller with `key` (by default a new admin:* key of the default workspace; a call may give
 * another): answers the body's `data`, and a non-200 throws with the status and body, so a set-up
 * step that fails says why.
 */
export async function adminApi(herald: TestApp, given?: string) {
  const key = given ?? (await herald.key({ scopes: ['admin:*'], clientId: herald.defaultClientId }))
  const call = await adminBody(herald, key)
  return async (method: string, path: string, body?: unknown, as = key) =>
    (await call(method, path, body, as)).data
}

/** As adminApi, answering the whole body (`data` and, for a list, `pagination`). */
export async function adminBody(herald: TestApp, given?: string) {
  const key = given ?? (await herald.key({ scopes: ['admin:*'], clientId: herald.defaultClientId }))
  return async (method: string, path: string, body?: unknown, as = key) => {
    const r = await herald.call(method, path, { key: as, body })
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
    return r.body
  }
}
