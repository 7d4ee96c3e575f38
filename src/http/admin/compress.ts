// Portal pages gzipped when the browser accepts it (Bun.serve does not compress): a list page
// shrinks ~5x, which keeps first loads and htmx swaps small. CSRF tokens in pages are masked
// per answer (./csrf.ts), so compression does not leak them (BREACH).

const MIN_BYTES = 1024

export async function gzipHtml(request: Request, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? ''
  if (!response.body || !type.startsWith('text/html') || response.headers.has('content-encoding'))
    return response
  if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return response
  const body = new Uint8Array(await response.arrayBuffer())
  const headers = new Headers(response.headers)
  if (body.byteLength < MIN_BYTES) return new Response(body, { status: response.status, headers })
  headers.set('content-encoding', 'gzip')
  headers.set('vary', headers.has('vary') ? `${headers.get('vary')}, Accept-Encoding` : 'Accept-Encoding')
  headers.delete('content-length')
  return new Response(Bun.gzipSync(body, { level: 6 }), { status: response.status, headers })
}
