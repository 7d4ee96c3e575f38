import { agentOperations } from '../api/agents'
import { analyticsOperations } from '../api/analytics'
import { apiKeyOperations } from '../api/api-keys'
import { campaignOperations } from '../api/campaigns'
import { clientOperations } from '../api/clients'
import { contactOperations } from '../api/contacts'
import { deliverabilityOperations } from '../api/deliverability'
import { domainOperations } from '../api/domains'
import { formOperations } from '../api/forms'
import { healthOperations } from '../api/health'
import { importOperations } from '../api/imports'
import { inboundOperations } from '../api/inbound'
import { journeyOperations } from '../api/journeys'
import { listOperations } from '../api/lists'
import { messageOperations } from '../api/messages'
import { oauthClientOperations } from '../api/oauth-clients'
import { replyOperations } from '../api/replies'
import { segmentOperations } from '../api/segments'
import { senderOperations } from '../api/senders'
import { sendingProfileOperations } from '../api/sending-profiles'
import { sequenceOperations } from '../api/sequences'
import { suppressionOperations } from '../api/suppressions'
import { templateOperations } from '../api/templates'
import { webhookOperations } from '../api/webhooks'
import { wellKnownOperations } from '../api/well-known'
import type { Operation } from './define-operation'

/** The operation registry: REST routes, OpenAPI and MCP tools all come from this list. */
export const operations: readonly Operation[] = [
  ...healthOperations,
  ...wellKnownOperations,
  ...agentOperations,
  ...clientOperations,
  ...sendingProfileOperations,
  ...apiKeyOperations,
  ...oauthClientOperations,
  ...importOperations,
  ...contactOperations,
  ...listOperations,
  ...formOperations,
  ...segmentOperations,
  ...suppressionOperations,
  ...templateOperations,
  ...senderOperations,
  ...domainOperations,
  ...campaignOperations,
  ...journeyOperations,
  ...sequenceOperations,
  ...messageOperations,
  ...webhookOperations,
  ...inboundOperations,
  ...replyOperations,
  ...analyticsOperations,
  ...deliverabilityOperations,
]
