import type { AppContext } from '../../context'
import { bucketsFor } from '../../db/shared-buckets'
import type { TakeTokens } from '../../lib/token-buckets'

/**
 * The buckets of one request limiter (API keys, sign-in, forms…), named apart from the others':
 * counted with every process on the database where several may serve it.
 */
export const requestBuckets = (app: Pick<AppContext, 'db'>, name: string): TakeTokens => bucketsFor(app, name)
