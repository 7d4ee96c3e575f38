import { expect, test } from 'bun:test'
import type { TestApp } from './app'

/** One row of a scenario table: a request and what must come back. */
export interface Scenario {
  name: string
  method?: string
  path?: string | (() => string)
  /** The credential; undefined = the table's default. */
  key?: () => string | null | Promise<string | null>
  body?: unknown
  status: number
  code?: string
  /** A field that `error.details` must name. */
  field?: string
  /** Fields that `error.details` must all name (one 422 lists every failure). */
  fields?: string[]
  /** What `error.details` must say of `field`. */
  message?: string | RegExp
}

export interface ScenarioDefaults {
  method: string
  path: string
  key?: () => string | null | Promise<string | null>
}

/** A row refused as invalid input: 422 VALIDATION_FAILED naming `field`; `also` adds a credential or path. */
export function invalid(name: string, body: unknown, field: string, also: Partial<Scenario> = {}): Scenario {
  return { name, body, status: 422, code: 'VALIDATION_FAILED', field, ...also }
}

/** The field names a 422 lists. */
export const detailFields = (body: { error?: { details?: { field: string }[] } }) =>
  (body.error?.details ?? []).map((d) => d.field)

/** Registers one test per row: call, then check status, error code and the named field. */
export function scenarios(t: TestApp, defaults: ScenarioDefaults, rows: Scenario[], prefix = ''): void {
  for (const r of rows) {
    test(`${prefix}${r.name} → ${r.status}`, async () => {
      const path = typeof r.path === 'function' ? r.path() : (r.path ?? defaults.path)
      const keyFn = r.key ?? defaults.key
      const res = await t.call(r.method ?? defaults.method, path, {
        key: keyFn ? await keyFn() : undefined,
        body: r.body,
      })
      expect(res.status).toBe(r.status)
      if (r.code) expect(res.body.error.code).toBe(r.code)
      if (r.field) expect(detailFields(res.body)).toContain(r.field)
      for (const f of r.fields ?? []) expect(detailFields(res.body)).toContain(f)
      if (r.message !== undefined) {
        const said = res.body.error.details.find((d: { field: string }) => d.field === r.field)?.message
        if (typeof r.message === 'string') expect(said).toBe(r.message)
        else expect(said).toMatch(r.message)
      }
    })
  }
}
