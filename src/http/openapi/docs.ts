import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import type { Operation } from '../rest/define-operation'
import { apiInfo, buildOpenApiDocument } from './document'
import type { Json } from './schemas'

/**
 * /openapi.json and Swagger UI at /docs. The document comes from our operation registry; the
 * plugin serves it and the UI, whose assets are embedded so /docs works offline.
 */
export function docsPlugin(
  operations: readonly Operation[],
  publicUrl: string,
  /** Build the document on its first read (./lazyDocument); off only for the test that compares the two. */
  { lazy = true }: { lazy?: boolean } = {},
) {
  const build = () => buildOpenApiDocument(operations, publicUrl)
  const doc = lazy ? lazyDocument(build) : build()
  return new Elysia({ name: 'herald-docs' })
    .get(
      '/docs/assets/swagger-ui-bundle.js',
      () => new Response(Bun.file(swaggerBundle), { headers: { 'content-type': 'text/javascript' } }),
      { detail: { hide: true } },
    )
    .get(
      '/docs/assets/swagger-ui.css',
      () => new Response(Bun.file(swaggerCss), { headers: { 'content-type': 'text/css' } }),
      { detail: { hide: true } },
    )
    .use(
      openapi({
        path: '/docs',
        specPath: '/openapi.json',
        provider: 'swagger-ui',
        documentation: doc as never,
        // The plugin points the UI at a relative `openapi.json`, which /docs/ resolves to
        // /docs/openapi.json (404); the document's own path works from both.
        swagger: {
          url: '/openapi.json',
          cdn: '/docs/assets/swagger-ui-bundle.js',
          theme: '/docs/assets/swagger-ui.css',
        } as never,
      }),
    )
}

/**
 * The document as the plugin reads it, built on first read instead of at start: building it
 * costs ~8 MB of idle RSS (docs/performance.md: idle RSS) that an instance nobody reads the
 * document of never needs. The plugin reads only `info` when it is set up (for the /docs page,
 * answered from apiInfo() without the build) and the rest when /openapi.json is first asked for
 * (it spreads the document then and keeps what it served); every read after the first sees the
 * same built object, so what is served is unchanged (test/http/docs-lazy.test.ts).
 */
export function lazyDocument(build: () => Json): Json {
  let built: Json | undefined
  const doc = () => {
    built ??= build()
    return built
  }
  const info = apiInfo()
  return new Proxy({} as Json, {
    get: (_, key) => (key === 'info' && built === undefined ? info : Reflect.get(doc(), key)),
    has: (_, key) => Reflect.has(doc(), key),
    ownKeys: () => Reflect.ownKeys(doc()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(doc(), key),
  })
}
