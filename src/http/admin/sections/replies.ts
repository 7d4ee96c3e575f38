import { getReplyVerb, listRepliesVerb } from '../../../services/replies/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { defineSection, page } from '../types'
import { indexRoute } from './links'

// Replies: the inbox of replies received to sent messages, newest first, and a
// reply's page with its text (stored as text; nothing of it is rendered as HTML).

const PATH = '/admin/replies'

export const repliesSection = defineSection({
  path: PATH,
  title: 'Replies',
  order: 50,
  group: 'activity',
  routes: [
    indexRoute(PATH, listRepliesVerb, {
      template: 'pages/replies/index',
      title: 'Replies',
      rows: 'replies',
      filter: { name: 'campaign_id' },
    }),
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const r = await invoke(getReplyVerb, req.ctx, { id: req.params.id! })
        return page('pages/replies/show', r.subject ?? `Reply from ${r.from}`, { reply: r })
      },
    },
  ],
})
