import type { Section } from '../types'
import { account } from './account'
import { apiKeys } from './api-keys'
import { dashboard } from './dashboard'

// The portal's sections, one module each. Adding a page: create ./<section>.ts with
// defineSection({...}) and add it here (see ../README.md). The nav lists these, by `order`.
export const sections: readonly Section[] = [dashboard, apiKeys, account]
