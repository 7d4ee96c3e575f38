import { FormatRegistry } from '@sinclair/typebox'

// String formats used by our schemas. Registered once, independent of Elysia's own registry.
const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
const DATE = /^\d{4}-\d{2}-\d{2}$/

function setIfAbsent(name: string, check: (v: string) => boolean) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
}

// Always ours, even when Elysia registered its own first: the API must accept and refuse the
// addresses CSV import does (contacts/normalize.ts). The local part is at most 64 characters
// (RFC 5321 §4.5.3.1.1).
FormatRegistry.Set('email', (v) => v.length <= 254 && EMAIL.test(v) && v.lastIndexOf('@') <= 64)
setIfAbsent('uuid', (v) => UUID.test(v))
setIfAbsent('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))
setIfAbsent('date', (v) => DATE.test(v) && !Number.isNaN(Date.parse(v)))
setIfAbsent('uri', (v) => {
  try {
    new URL(v)
    return true
  } catch {
    return false
  }
})
