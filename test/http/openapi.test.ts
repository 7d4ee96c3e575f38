import { describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { operations } from '../../src/http/rest/registry'
import { ERROR_STATUS } from '../../src/http/rest/respond'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()

describe('OpenAPI document', () => {
  test('validates with swagger-parser and carries version 1.0.0', async () => {
    const res = await t.call('GET', '/openapi.json', { key: null })
    expect(res.status).toBe(200)
    expect(res.body.info.version).toBe('1.0.0')
    await SwaggerParser.validate(structuredClone(res.body))
  })

  test('every registered operation appears with its path as written, scope and error responses', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    for (const o of operations) {
      const entry = doc.paths[o.path]?.[o.method.toLowerCase()]
      expect(entry).toBeDefined()
      expect(entry.operationId).toBe(o.id)
      expect(entry['x-required-scope']).toBe(o.auth === 'none' ? null : o.auth)
      expect(entry.responses['200']).toBeDefined()
      if (o.auth !== 'none') expect(entry.responses['401']).toBeDefined()
    }
    expect(doc.paths['/api/v1/clients/{id}'].get).toBeDefined()
    expect(doc.paths['/api/v1/api-keys'].post.requestBody).toBeDefined()
    // Streamed bodies are described by their media types.
    expect(Object.keys(doc.paths['/api/v1/contacts/imports'].post.requestBody.content)).toContain('text/csv')
    expect(Object.keys(doc.paths['/api/v1/inbound/email'].post.requestBody.content)).toContain(
      'message/rfc822',
    )
    expect(Object.keys(doc.paths).every((p: string) => !p.includes(':'))).toBe(true)
  })

  test('Swagger UI at /docs loads its embedded assets', async () => {
    const page = await t.call('GET', '/docs', { key: null })
    expect(page.status).toBe(200)
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js')
    expect((await t.call('GET', '/docs/assets/swagger-ui-bundle.js', { key: null })).status).toBe(200)
  })

  test('Swagger UI at /docs and /docs/ loads the document (its URL resolves from both)', async () => {
    for (const path of ['/docs', '/docs/']) {
      const page = await t.call('GET', path, { key: null })
      expect(page.status).toBe(200)
      const url = /"url":"([^"]+)"/.exec(page.text)?.[1]
      expect(url).toBeDefined()
      const spec = new URL(url!, `http://localhost:8080${path}`)
      const res = await t.call('GET', spec.pathname, { key: null })
      expect(res.status).toBe(200)
      expect(res.body.openapi).toStartWith('3.1')
    }
  })

  test('internal routes (tracking links, unsubscribe pages, provider callbacks) are not in it', async () => {
    const app = await createTestApp({
      env: {
        HERALD_SMS_PROVIDER: 'twilio',
        HERALD_TWILIO_BASE_URL: 'http://127.0.0.1:9',
        HERALD_TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
        HERALD_TWILIO_AUTH_TOKEN: 'token',
        HERALD_TWILIO_FROM: '+14155550100',
      },
    })
    // The callback is served (an unsigned report is refused, not 404) …
    const callback = await app.call('POST', '/api/v1/inbound/twilio/status', {
      key: null,
      raw: 'MessageSid=SM1&MessageStatus=delivered',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(callback.status).not.toBe(404)
    // … and, like the tracking links, left out of the document.
    const doc = (await app.call('GET', '/openapi.json', { key: null })).body
    const paths = Object.keys(doc.paths)
    const documented = ['/api/v1/', '/.well-known/', '/agent/auth/']
    expect(paths.filter((p) => !documented.some((prefix) => p.startsWith(prefix)))).toEqual([])
    expect(paths.filter((p) => p.includes('inbound/twilio'))).toEqual([])
    expect(paths.length).toBe(new Set(operations.map((o) => o.path)).size)
  })

  test('resources, inputs and errors are named components, referenced by $ref', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    const names = Object.keys(doc.components.schemas)
    for (const name of ['Contact', 'ContactInput', 'ContactPatch', 'Campaign', 'CampaignInput', 'Error'])
      expect(names).toContain(name)
    for (const name of [
      'ValidationError',
      'ConflictError',
      'InvalidStateError',
      'ForbiddenError',
      'FieldError',
    ])
      expect(names).toContain(name)
    const create = doc.paths['/api/v1/contacts'].post
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ContactInput',
    })
    expect(create.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/Contact',
    })
    expect(create.requestBody.content['application/json'].example.email).toBe('ann.lee@acme.io')
    // Free-form maps are additionalProperties, never TypeBox's patternProperties.
    expect(JSON.stringify(doc)).not.toContain('patternProperties')
    expect(doc.components.schemas.Contact.properties.custom_fields.additionalProperties).toEqual({})
  })

  test('the error envelope: code enums and typed details', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    const { schemas } = doc.components
    const inner = (name: string) => schemas[name].properties.error
    const codes = [
      ...inner('Error').properties.code.enum,
      ...['ValidationError', 'ConflictError', 'InvalidStateError', 'ForbiddenError'].map(
        (n) => inner(n).properties.code.const,
      ),
    ]
    expect(codes.sort()).toEqual(Object.keys(ERROR_STATUS).sort())
    expect(inner('ValidationError').required).toContain('details')
    expect(inner('ValidationError').properties.details.items).toEqual({
      $ref: '#/components/schemas/FieldError',
    })
    expect(inner('ConflictError').properties.details.required).toEqual(['existing_id'])
    expect(inner('InvalidStateError').properties.details.required).toEqual(['status', 'allowed_from'])
    expect(inner('ForbiddenError').properties.details.type).toBe('object')
    const responses = doc.paths['/api/v1/contacts'].post.responses
    const resolve = (r: { $ref: string }) => doc.components.responses[r.$ref.split('/').pop()!]
    expect(resolve(responses['422']).content['application/json'].schema.anyOf[0]).toEqual({
      $ref: '#/components/schemas/ValidationError',
    })
    expect(resolve(responses['401']).headers['WWW-Authenticate']).toBeDefined()
    expect(resolve(responses['429']).headers['Retry-After']).toBeDefined()
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined()
    expect(Object.keys(responses['200'].headers)).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotency-Key',
      'Idempotent-Replayed',
    ])
    expect(Object.keys(doc.paths['/api/v1/health'].get.responses['200'].headers)).toEqual(['X-Request-Id'])
  })

  test('the CSV export, segment rules, webhook events, launch confirm and id parameters as the server enforces them', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    const { schemas } = doc.components
    expect(Object.keys(doc.paths['/api/v1/contacts/export'].get.responses['200'].content)).toEqual([
      'text/csv',
    ])
    expect(schemas.SegmentRule.anyOf.length).toBe(7)
    expect(schemas.SegmentCompareRule.properties.operator.enum).toContain('starts_with')
    expect(schemas.SegmentEventRule.properties.event.enum).toContain('opened')
    expect(schemas.SegmentInput.properties.rule_groups.items).toEqual({
      $ref: '#/components/schemas/SegmentRuleGroup',
    })
    expect(schemas.Segment.properties.rule_groups.items).toEqual({
      $ref: '#/components/schemas/SegmentRuleGroup',
    })
    expect(schemas.WebhookInput.properties.events).toMatchObject({ minItems: 1, uniqueItems: true })
    expect(schemas.WebhookInput.properties.events.items).toEqual({ $ref: '#/components/schemas/EventType' })
    expect(schemas.EventType.enum.length).toBe(7)
    expect(schemas.LaunchCampaignInput.properties.confirm).toMatchObject({ type: 'boolean', const: true })
    const messages = doc.paths['/api/v1/messages'].get.parameters
    for (const name of ['campaign_id', 'contact_id', 'client_id'])
      expect(messages.find((p: { name: string }) => p.name === name).schema.pattern).toBeDefined()
    const clientId = (path: string, method: string) =>
      doc.paths[path][method].parameters.find((p: { name: string }) => p.name === 'client_id').description
    expect(clientId('/api/v1/contacts', 'post')).toContain('required')
    expect(clientId('/api/v1/contacts', 'get')).toContain('filter')
    expect(doc.info.license.name).toBeDefined()
    expect(doc.servers[0].url).toBe('http://localhost:8080')
    expect(doc.tags.find((tag: { name: string }) => tag.name === 'Contacts').description).toBeDefined()
  })
})
