import { getSettingsVerb } from '../../../services/settings/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { defineSection, page } from '../types'
import { platformCtx } from './platform'

// The instance configuration (src/config.ts), read-only: each setting's value (secrets masked by
// the verb), and where it came from — a command-line flag, its HERALD_* variable, or the default.

export const settingsSection = defineSection({
  path: '/admin/settings',
  title: 'Settings',
  order: 110,
  group: 'admin',
  roles: ['owner', 'admin'],
  routes: [
    {
      method: 'GET',
      path: '/admin/settings',
      handler: async (req) =>
        page('pages/settings/index', 'Settings', {
          settings: await invoke(getSettingsVerb, platformCtx(req), {}),
        }),
    },
  ],
})
