import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { JOURNEY_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * A journey: its graph is the `nodes` JSON as the API takes it. The trigger's
 * kind and reference are copied out of the graph at activation so the hooks (list joined,
 * contact created, events, the segment job) find the journeys they start with one index seek.
 */
export const journeys = sqliteTable(
  'journeys',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    status: text('status', { enum: JOURNEY_STATUSES }).notNull().default('draft'),
    nodes: text('nodes', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    allowReentry: integer('allow_reentry', { mode: 'boolean' }).notNull().default(false),
    /** manual | segment_entered | list_joined | event | contact_created (set at activation). */
    triggerKind: text('trigger_kind'),
    /** The list, segment or campaign the trigger names, if any. */
    triggerRef: text('trigger_ref'),
    /** An `event` trigger's event type (`email.opened`…). */
    triggerEvent: text('trigger_event'),
    activatedAt: integer('activated_at'),
    archivedAt: integer('archived_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('journeys_client_idx').on(t.clientId, t.id),
    index('journeys_trigger_idx').on(t.status, t.triggerKind, t.triggerRef),
  ],
)

/**
 * The members of a `segment_entered` journey's segment as last seen: the segment job enrolls
 * those who match now and were not seen (newly matching), and forgets those who left.
 */
export const journeySegmentSeen = sqliteTable(
  'journey_segment_seen',
  {
    journeyId: text('journey_id').notNull(),
    contactId: text('contact_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.journeyId, t.contactId] })],
)

export type JourneyRow = typeof journeys.$inferSelect
