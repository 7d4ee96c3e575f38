import type { Flags } from '../config'
import { PORTAL_ROLES } from '../db/schema/users'
import type { PortalRole } from '../services/actors/actor'
import { createUserVerb, listUsersVerb, resetUserPasswordVerb } from '../services/users/verbs'
import { everyPage, invokeAsConsole } from './console-verbs'
import { withOfflineContextAsync } from './offline'
import { UsageError } from './usage'

// `herald users …`: portal users on the data file (scripts and recovery), through
// the same verbs as the portal, as the console actor. A password not given is generated and
// printed once.

export interface UserFlags extends Flags {
  email?: string
  role?: string
  password?: string
  clients?: string
  json?: boolean
}

export async function usersCommand(sub: string | undefined, args: string[], flags: UserFlags): Promise<void> {
  if (sub === 'create') {
    const email = flags.email ?? args[0]
    if (!email || args.length > 1) throw new UsageError('users create needs --email EMAIL')
    const role = flags.role ?? 'admin'
    if (!(PORTAL_ROLES as readonly string[]).includes(role))
      throw new UsageError(`--role must be one of ${PORTAL_ROLES.join(', ')}`)
    const clients = flags.clients
      ?.split(',')
      .map((c) => c.trim())
      .filter(Boolean)
    if (role === 'member' && !clients?.length)
      throw new UsageError('a member needs --clients ID[,ID…] (the workspaces it may use)')
    const created = await withOfflineContextAsync(flags, (ctx) =>
      invokeAsConsole(createUserVerb, ctx, {
        email,
        role: role as PortalRole,
        password: flags.password,
        clients,
      }),
    )
    if (flags.json) console.log(JSON.stringify(created))
    else {
      console.log(`Created ${created.role} ${created.email} (${created.id}).`)
      if (created.password) console.log(`Password (shown once): ${created.password}`)
    }
    return
  }
  if (sub === 'reset-password') {
    const email = flags.email ?? args[0]
    if (!email || args.length > 1) throw new UsageError('users reset-password needs the user’s email')
    const reset = await withOfflineContextAsync(flags, async (ctx) => {
      const user = (await everyPage(ctx, listUsersVerb)).find((u) => u.email === email.trim().toLowerCase())
      if (!user) throw new Error(`no portal user with the email ${email}`)
      return invokeAsConsole(resetUserPasswordVerb, ctx, { id: user.id, password: flags.password })
    })
    if (flags.json) console.log(JSON.stringify(reset))
    else {
      console.log(`New password set for ${reset.email}; their sessions were ended.`)
      if (reset.password) console.log(`Password (shown once): ${reset.password}`)
    }
    return
  }
  if (sub === 'list') {
    if (args.length) throw new UsageError('users list takes no arguments')
    const users = await withOfflineContextAsync(flags, (ctx) => everyPage(ctx, listUsersVerb))
    if (flags.json) console.log(JSON.stringify(users))
    else
      for (const u of users)
        console.log(
          [u.id, u.email, u.role, u.clients ? u.clients.join(',') : 'all clients', u.created_at].join('\t'),
        )
    return
  }
  throw new UsageError(`unknown users command: ${sub ?? '(none)'} (create, reset-password, list)`)
}
