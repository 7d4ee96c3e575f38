import { sha256Hex } from '../../lib/crypto'
import { embeddedAssets } from './views.generated'

// Static assets embedded in the binary, served under /admin/static/<name>?v=<hash>. The hash
// in the URL changes with the content, so answers may be cached for a year; gzip is computed
// once, on first request.

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
}

interface Asset {
  body: Uint8Array<ArrayBuffer>
  gzip: Uint8Array<ArrayBuffer> | null
  type: string
  version: string
}

const assets = new Map<string, Asset>()
for (const [name, text] of Object.entries(embeddedAssets)) {
  const body = new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>
  assets.set(name, {
    body,
    gzip: null,
    type: TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
    version: sha256Hex(body).slice(0, 12),
  })
}

/** The versioned URL of an asset, for templates. */
export function assetUrl(name: string): string {
  const a = assets.get(name)
  if (!a) throw new Error(`no embedded asset ${name}`)
  return `/admin/static/${name}?v=${a.version}`
}

export function assetResponse(
  name: string,
  version: string | null,
  acceptEncoding: string | null,
): Response | null {
  const a = assets.get(name)
  if (!a) return null
  const headers: Record<string, string> = {
    'content-type': a.type,
    vary: 'Accept-Encoding',
    // An old or missing version is still answered (a page cached before an upgrade) but not cached.
    'cache-control': version === a.version ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag: `"${a.version}"`,
  }
  if (acceptEncoding && /\bgzip\b/.test(acceptEncoding)) {
    a.gzip ??= Bun.gzipSync(a.body, { level: 9 }) as Uint8Array<ArrayBuffer>
    headers['content-encoding'] = 'gzip'
    return new Response(a.gzip, { headers })
  }
  return new Response(a.body, { headers })
}
