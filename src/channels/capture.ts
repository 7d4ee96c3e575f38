import type { ChannelProvider, ProviderCapabilities } from './types'

// The default provider of every channel: nothing leaves the machine. The send queue keeps the
// rendered message in the outbox, where the portal and GET /messages/{id} show it (like
// Mailpit), so "sending" is just saying it was taken, and the message counts as delivered.

export const CAPTURE_CAPABILITIES: ProviderCapabilities = {
  storesContent: true,
  reportsDelivery: false,
  needsVerifiedSender: false,
}

export function createCaptureProvider(): ChannelProvider {
  return {
    name: 'capture',
    capabilities: CAPTURE_CAPABILITIES,
    async send() {
      return { providerMessageId: null, delivered: true }
    },
    async close() {},
  }
}
