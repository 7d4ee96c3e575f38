import { defineVerb } from '../verbs/define'
import { ListRepliesInput, ReplyRef } from './inputs'
import { getReply, listReplies } from './read'

export const listRepliesVerb = defineVerb({
  name: 'replies.list',
  scope: 'replies:read',
  input: ListRepliesInput,
  mutates: false,
  run: async (ctx, input) => await listReplies(ctx, input),
})

export const getReplyVerb = defineVerb({
  name: 'replies.get',
  scope: 'replies:read',
  input: ReplyRef,
  mutates: false,
  run: async (ctx, { id }) => await getReply(ctx, id),
})
