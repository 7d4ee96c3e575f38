import { PgJsonb } from 'drizzle-orm/pg-core'

// Bun's SQL client encodes a jsonb parameter itself (JSON.stringify of the value) and hands
// jsonb results back parsed. drizzle's jsonb column stringifies before it too, so every value
// was stored as a JSON string scalar ("{\"a\":1}", jsonb_typeof 'string'): `->>`, jsonb_each
// and containment then find nothing. On this driver the column passes values through as they
// are, both ways (a string stays a string; it is not parsed as JSON text).
PgJsonb.prototype.mapToDriverValue = (value: unknown) => value as string
PgJsonb.prototype.mapFromDriverValue = (value: unknown) => value
