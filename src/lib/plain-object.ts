/** A JSON object (not null, not an array): what a body, its params or a member object must be. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
