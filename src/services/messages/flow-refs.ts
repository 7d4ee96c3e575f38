import type { MessageRow } from '../../db/schema'

/** The journey or sequence that queued a message, as the API, events and replies name them. */
export const flowRefsOf = (m: Pick<MessageRow, 'sourceKind' | 'sourceId'>) => ({
  journeyId: m.sourceKind === 'journey' ? m.sourceId : null,
  sequenceId: m.sourceKind === 'sequence' ? m.sourceId : null,
})
