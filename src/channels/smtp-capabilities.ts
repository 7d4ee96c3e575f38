import type { ProviderCapabilities } from './types'

// What the send queue knows of the smtp provider, in a file of its own so the registry can
// answer it without loading the provider and nodemailer's SMTP and MIME code (registry.ts).

export const SMTP_CAPABILITIES: ProviderCapabilities = {
  storesContent: false,
  reportsDelivery: false,
  needsVerifiedSender: true,
  offThread: true,
}
