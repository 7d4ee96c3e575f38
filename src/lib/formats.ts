import { FormatRegistry } from '@sinclair/typebox'

// String formats used by our schemas. Registered once, independent of Elysia's own registry.
const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
const DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Registers our formats, replacing any other registration: @elysiajs/openapi sets its own
 * `email`, `uuid` and `date` checkers when it is imported (unconditionally, so after or before
 * us depending on import order), and the API must accept and refuse exactly what CSV import
 * does (contacts/normalize.ts). Called at load and again before each schema is compiled.
 */
export function registerFormats(): void {
  // The local part is at most 64 characters (RFC 5321 §4.5.3.1.1).
  FormatRegistry.Set('email', (v) => v.length <= 254 && EMAIL.test(v) && v.lastIndexOf('@') <= 64)
  FormatRegistry.Set('uuid', (v) => UUID.test(v))
  FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))
  FormatRegistry.Set('date', (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)))
  FormatRegistry.Set('uri', (v) => {
    try {
      new URL(v)
      return true
    } catch {
      return false
    }
  })
}

registerFormats()
