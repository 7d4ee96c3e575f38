import type { Operation } from './define-operation'

/**
 * Operations whose input takes `client_id` from the JSON body (contact search, API keys, OAuth
 * clients, agent registration). Everywhere else client_id is a query parameter (the spec's
 * convention), so these read `?client_id=` as the same member: the pipeline merges it and the
 * document lists it, instead of dropping it silently.
 */
export const takesClientIdFromBody = (o: Operation) => !o.query && o.bodyMembers.includes('client_id')
