import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import { buildOpenApiDocument } from './openapi'
import type { Operation } from './operation'

/**
 * /openapi.json and Swagger UI at /docs. The document comes from our operation registry; the
 * plugin serves it and the UI, whose assets are embedded so /docs works offline.
 */
export function docsPlugin(operations: readonly Operation[], publicUrl: string) {
  const doc = buildOpenApiDocument(operations, publicUrl)
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
