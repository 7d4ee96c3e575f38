import type { NodeType } from '../nodes'
import { condition } from './condition'
import { exit } from './exit'
import { goal } from './goal'
import { addToList, removeFromList } from './lists'
import { send } from './send'
import type { NodeSpec } from './spec'
import { split } from './split'
import { trigger } from './trigger'
import { updateContact } from './update-contact'
import { wait } from './wait'
import { waitForEvent } from './wait-for-event'
import { webhook } from './webhook'

/** Every node type: a new one is a file of this folder and a line here (and its name in NODE_TYPES). */
export const NODE_SPECS: Record<NodeType, NodeSpec> = {
  trigger,
  send,
  wait,
  wait_for_event: waitForEvent,
  condition,
  split,
  update_contact: updateContact,
  add_to_list: addToList,
  remove_from_list: removeFromList,
  webhook,
  goal,
  exit,
}

/** Members every node may carry. `label` and `position` are for the portal's drawing. */
const COMMON = ['id', 'type', 'label', 'position']

export const allowedMembers = (type: NodeType) => [...COMMON, ...NODE_SPECS[type].members]

/** Types a run may wait at: a cycle through one is not a busy loop. */
export const isWaiting = (type: unknown) => NODE_SPECS[type as NodeType]?.waits === true
