import type { Section } from '../types'
import { account } from './account'
import { agentsSection } from './agents'
import { analyticsSection } from './analytics'
import { apiKeys } from './api-keys'
import { assistantKeys } from './assistant-keys'
import { campaignsSection } from './campaigns'
import { clientsSection } from './clients'
import { contactsSection } from './contacts'
import { dashboard } from './dashboard'
import { deliverabilitySection } from './deliverability'
import { domainsSection } from './domains'
import { formsSection } from './forms'
import { importsSection } from './imports'
import { jobsSection } from './jobs'
import { journeysSection } from './journeys'
import { listsSection } from './lists'
import { messagesSection } from './messages'
import { oauthClientsSection } from './oauth-clients'
import { repliesSection } from './replies'
import { segmentsSection } from './segments'
import { sendersSection } from './senders'
import { sendingSection } from './sending'
import { sequencesSection } from './sequences'
import { settingsSection } from './settings'
import { suppressionsSection } from './suppressions'
import { templatesSection } from './templates'
import { usersSection } from './users'
import { webhooksSection } from './webhooks'

// The portal's sections, one module each. Adding a page: create ./<section>.ts with
// defineSection({...}) and add it here (see ../README.md). The nav lists these by group, then `order`.
export const sections: readonly Section[] = [
  dashboard,
  contactsSection,
  importsSection,
  listsSection,
  segmentsSection,
  formsSection,
  templatesSection,
  campaignsSection,
  messagesSection,
  repliesSection,
  journeysSection,
  sequencesSection,
  suppressionsSection,
  analyticsSection,
  deliverabilitySection,
  apiKeys,
  assistantKeys,
  agentsSection,
  oauthClientsSection,
  sendersSection,
  sendingSection,
  domainsSection,
  webhooksSection,
  jobsSection,
  clientsSection,
  usersSection,
  settingsSection,
  account,
]
