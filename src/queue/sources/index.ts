import type { MessageRow } from '../../db/schema'
import type { MessageSource } from './types'

// The sources the send worker serves, in the order their lanes are claimed.

export interface Sources {
  all: readonly MessageSource[]
  /** The source of a claimed message (claims only ever return messages of these). */
  of(m: MessageRow): MessageSource
}

export function sourcesOf(all: readonly MessageSource[]): Sources {
  return {
    all,
    of(m) {
      const s = all.find((source) => source.owns(m))
      if (!s) throw new Error(`no source sends message ${m.id}`)
      return s
    },
  }
}
