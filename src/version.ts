import pkg from '../package.json' with { type: 'json' }

export const VERSION: string = pkg.version
/** The API version in /openapi.json; the REST API is versioned by its /api/v1 prefix. */
export const API_VERSION = '1.0.0'
