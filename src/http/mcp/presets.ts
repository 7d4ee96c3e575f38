import { SCOPES, type Scope } from '../../lib/scopes'

// Scope presets for a key an AI assistant will hold (the portal's "Key for an AI assistant").
// Read-only: every `…:read` scope but compliance:read (it also adds and removes suppressions).
// Drafting: that, plus writing contacts, lists, segments, templates and campaigns — a draft
// campaign, never a launch (no campaigns:launch).

const READS = SCOPES.filter((s) => s.endsWith(':read') && s !== 'compliance:read')

export const ASSISTANT_PRESETS = {
  'read-only': {
    label: 'Read-only',
    description:
      'Look things up: contacts, lists, campaigns and their stats, templates, journeys. Changes nothing.',
    scopes: READS,
  },
  drafting: {
    label: 'Drafting',
    description:
      'Everything read-only can, and create or edit contacts, lists, segments, templates and draft campaigns. Cannot launch a campaign. Note that campaigns:write also allows one-off messages to a single contact (send_message).',
    scopes: [...READS, 'contacts:write', 'lists:write', 'templates:write', 'campaigns:write'] as Scope[],
  },
} as const satisfies Record<string, { label: string; description: string; scopes: readonly Scope[] }>

export type AssistantPreset = keyof typeof ASSISTANT_PRESETS
