// The closed sets of values the domain knows (statuses, channels, tiers, sources). The database
// schema and every door import them from here, so a value is declared once.

export const API_KEY_TIERS = ['standard', 'growth', 'scale', 'unlimited'] as const
export type ApiKeyTier = (typeof API_KEY_TIERS)[number]

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'sending',
  'sent',
  'paused',
  'failed',
  'cancelled',
] as const
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number]

export const CAMPAIGN_CHANNELS = ['email', 'sms', 'voice', 'whatsapp', 'rcs'] as const
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number]

export const CONTACT_STATUSES = ['subscribed', 'unsubscribed', 'bounced', 'complained', 'blocked'] as const
export type ContactStatus = (typeof CONTACT_STATUSES)[number]

export const DOMAIN_STATUSES = ['pending', 'verified', 'broken'] as const
export type DomainStatus = (typeof DOMAIN_STATUSES)[number]

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const

export const MESSAGE_STATUSES = [
  'queued',
  'sending',
  'sent',
  'delivered',
  'failed',
  'bounced',
  'skipped',
  'cancelled',
] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

/** The sending limits that hold a queued message back past its turn. */
export const DEFER_REASONS = ['warmup', 'throttle', 'hourly_cap'] as const
export type DeferReason = (typeof DEFER_REASONS)[number]

export const SUPPRESSION_SOURCES = ['api', 'unsubscribe', 'hard_bounce', 'complaint', 'admin'] as const
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number]

export const TEMPLATE_CHANNELS = ['email', 'sms', 'voice', 'whatsapp', 'rcs'] as const
export type TemplateChannel = (typeof TEMPLATE_CHANNELS)[number]

export const DISABLED_REASONS = ['manual', 'gone', 'failing'] as const
export type DisabledReason = (typeof DISABLED_REASONS)[number]

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const JOURNEY_STATUSES = ['draft', 'active', 'paused', 'archived'] as const
export type JourneyStatus = (typeof JOURNEY_STATUSES)[number]

export const ENROLLMENT_STATUSES = ['active', 'completed', 'exited'] as const
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number]

/** Why an enrollment ended early (null: it reached the end of its path). `erased`: the contact was erased. */
export const EXIT_REASONS = [
  'goal',
  'archived',
  'bounced',
  'complained',
  'unsubscribed',
  'manual',
  'erased',
] as const
export type ExitReason = (typeof EXIT_REASONS)[number]

/** Agent registrations: pending → approved → claimed; an operator may deny instead. */
export const AGENT_REGISTRATION_STATUSES = ['pending', 'approved', 'claimed', 'denied'] as const
export type AgentRegistrationStatus = (typeof AGENT_REGISTRATION_STATUSES)[number]

export const AGENT_IDENTITY_TYPES = ['anonymous', 'identity_assertion'] as const
export type AgentIdentityType = (typeof AGENT_IDENTITY_TYPES)[number]

export const SEQUENCE_STATUSES = ['draft', 'active', 'paused', 'archived'] as const
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number]

export const SEQUENCE_ENROLLMENT_STATUSES = ['active', 'completed', 'stopped', 'exited'] as const
export type SequenceEnrollmentStatus = (typeof SEQUENCE_ENROLLMENT_STATUSES)[number]

/** Why a contact's run of a sequence stopped (null: it completed, or the sequence ended it). */
export const SEQUENCE_STOP_REASONS = ['replied', 'bounced', 'unsubscribed', 'manual'] as const
export type SequenceStopReason = (typeof SEQUENCE_STOP_REASONS)[number]

/** The definitions the one flow engine runs: a journey's graph, a sequence's steps. */
export const FLOW_KINDS = ['journey', 'sequence'] as const
export type FlowKind = (typeof FLOW_KINDS)[number]

export const FLOW_ENROLLMENT_STATUSES = ['active', 'completed', 'exited', 'stopped'] as const
export type FlowEnrollmentStatus = (typeof FLOW_ENROLLMENT_STATUSES)[number]

/** A journey's exit reasons and a sequence's stop reasons, in one column. */
export const FLOW_END_REASONS = [...new Set([...EXIT_REASONS, ...SEQUENCE_STOP_REASONS])] as [
  ExitReason | SequenceStopReason,
  ...(ExitReason | SequenceStopReason)[],
]
export type FlowEndReason = ExitReason | SequenceStopReason

export const LIST_OPT_INS = ['single', 'double'] as const
export type ListOptIn = (typeof LIST_OPT_INS)[number]

/** A contact's place on a list: only `confirmed` members are sent to. */
export const MEMBERSHIP_STATUSES = ['unconfirmed', 'confirmed', 'unsubscribed'] as const
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number]

export const CONSENT_ACTIONS = ['subscribed', 'confirmed', 'unsubscribed'] as const
export type ConsentAction = (typeof CONSENT_ACTIONS)[number]

/** Where a consent record came from. */
export const CONSENT_SOURCES = [
  'form',
  'api',
  'import',
  'preferences',
  'unsubscribe_link',
  'admin',
  'sms',
] as const
export type ConsentSource = (typeof CONSENT_SOURCES)[number]

export const FORM_STATUSES = ['active', 'disabled'] as const
export type FormStatus = (typeof FORM_STATUSES)[number]
