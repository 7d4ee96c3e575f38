import { describe, expect, test } from 'bun:test'
import { submit, text } from '../../../src/http/admin/forms'
import { createPortal } from '../../../src/http/admin/portal'
import { sections } from '../../../src/http/admin/sections'
import { defineSection, page, redirect } from '../../../src/http/admin/types'
import { createContactVerb, listContactsVerb } from '../../../src/services/contacts/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'
import { type Browser, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Roles are the verbs' (DESIGN §9a): the portal hides nothing to enforce them. Each row is one
// role, acting in a workspace it may or may not use, calling a read page and a mutating POST.
// Besides the real pages, a test section over the contact verbs shows the workspace rule
// (contacts are tenant records; API keys need admin:*, which only owners and admins hold).

const t = await createTestApp({ env: PORTAL_ENV })
const other = await t.client('Other agency')

const probe = defineSection({
  path: '/admin/probe',
  title: 'Probe',
  order: 5,
  group: 'audience',
  routes: [
    {
      method: 'GET',
      path: '/admin/probe',
      handler: async (req) => {
        const r = await invoke(listContactsVerb, req.ctx, {})
        return page('pages/errors/error', 'Probe', {
          heading: 'Contacts',
          message: String(r.pagination.total),
        })
      },
    },
    {
      method: 'POST',
      path: '/admin/probe',
      handler: async (req) =>
        await submit(
          req,
          createContactVerb,
          { email: text(req, 'email') },
          {
            done: () => redirect('/admin/probe', { kind: 'success', message: 'Created.' }),
            retry: (errors) =>
              page('pages/errors/error', 'Probe', { heading: 'Invalid', message: JSON.stringify(errors) }),
          },
        ),
    },
  ],
})
const portal = createPortal(t.ctx, [...sections, probe])
const handle = async (r: Request) => await portal.handle(r, null, 'test')

type Who = 'owner' | 'admin' | 'member' | 'member-elsewhere' | 'member-nowhere' | 'viewer'
const browsers = new Map<Who, Browser>()
async function as(who: Who): Promise<Browser> {
  let b = browsers.get(who)
  if (!b) {
    const user =
      who === 'owner'
        ? undefined
        : who === 'member'
          ? await makeUser(t, { role: 'member', clients: [t.defaultClientId] })
          : who === 'member-elsewhere'
            ? await makeUser(t, { role: 'member', clients: [other] })
            : who === 'member-nowhere'
              ? await makeUser(t, { role: 'member', clients: [] })
              : await makeUser(t, { role: who })
    b = await signIn(t, user, handle)
    browsers.set(who, b)
  }
  return b
}

let serial = 0
const email = () => `probe${++serial}@example.com`

describe('role × page × method → status', () => {
  test.each<[Who, string, 'GET' | 'POST', number]>([
    // A read page every role may open.
    ['owner', '/admin', 'GET', 200],
    ['admin', '/admin', 'GET', 200],
    ['member', '/admin', 'GET', 200],
    ['member-nowhere', '/admin', 'GET', 200],
    ['viewer', '/admin', 'GET', 200],
    // API keys: admin:* only.
    ['owner', '/admin/api-keys', 'GET', 200],
    ['admin', '/admin/api-keys', 'GET', 200],
    ['member', '/admin/api-keys', 'GET', 403],
    ['viewer', '/admin/api-keys', 'GET', 403],
    ['owner', '/admin/api-keys', 'POST', 200],
    ['admin', '/admin/api-keys', 'POST', 200],
    ['member', '/admin/api-keys', 'POST', 403],
    ['viewer', '/admin/api-keys', 'POST', 403],
    // Tenant records in the chosen workspace: read and write.
    ['owner', '/admin/probe', 'GET', 200],
    ['owner', '/admin/probe', 'POST', 303],
    ['admin', '/admin/probe', 'POST', 303],
    ['member', '/admin/probe', 'GET', 200],
    ['member', '/admin/probe', 'POST', 303],
    ['member-elsewhere', '/admin/probe', 'GET', 200],
    ['member-elsewhere', '/admin/probe', 'POST', 303],
    ['member-nowhere', '/admin/probe', 'GET', 403],
    ['member-nowhere', '/admin/probe', 'POST', 403],
    ['viewer', '/admin/probe', 'GET', 200],
    ['viewer', '/admin/probe', 'POST', 403],
    // Their own account: every role, in any workspace.
    ['viewer', '/admin/account', 'GET', 200],
    ['member-nowhere', '/admin/account', 'GET', 200],
    ['viewer', '/admin/account', 'POST', 303],
    ['member-nowhere', '/admin/account', 'POST', 303],
  ])('%s %s %s → %d', async (who, path, method, status) => {
    const b = await as(who)
    const res =
      method === 'GET'
        ? await b.get(path)
        : await b.post(
            path,
            path === '/admin/api-keys'
              ? { name: 'k', scopes: 'contacts:read', tier: 'standard' }
              : path === '/admin/account'
                ? { timezone: 'Europe/Paris' }
                : { email: email() },
          )
    expect(res.status).toBe(status)
    if (status === 403) expect(res.text).toContain('Not allowed')
  })
})

describe('workspaces', () => {
  test.each<[Who, 'default' | 'other' | 'all', number]>([
    ['owner', 'other', 303],
    ['owner', 'all', 303],
    ['admin', 'default', 303],
    ['member', 'default', 303],
    ['member', 'other', 403],
    ['member', 'all', 403],
    ['member-elsewhere', 'default', 403],
    ['member-elsewhere', 'other', 303],
  ])('%s switches to %s → %d', async (who, target, status) => {
    const b = await as(who)
    const workspace = target === 'default' ? t.defaultClientId : target === 'other' ? other : ''
    const res = await b.post('/admin/workspace', { workspace, next: '/admin' })
    expect(res.status).toBe(status)
  })

  test('the choice survives a reload and scopes what the pages show', async () => {
    const b = await signIn(t, undefined, handle)
    // Opens on the Default workspace.
    expect((await b.get('/admin')).text).toMatch(/<option value="[^"]+" selected>Default workspace<\/option>/)
    await b.post('/admin/probe', { email: email() })
    const inDefault = Number(/<p>(\d+)<\/p>/.exec((await b.get('/admin/probe')).text)![1])
    expect(inDefault).toBeGreaterThan(0)
    const switched = await b.post('/admin/workspace', { workspace: other, next: '/admin/probe' })
    expect(switched.location).toBe('/admin/probe')
    const after = await b.get('/admin/probe')
    expect(after.text).toContain('Now working in Other agency.')
    expect(after.text).toMatch(/<option value="[^"]+" selected>Other agency<\/option>/)
    const inOther = Number(/<p>(\d+)<\/p>/.exec(after.text)![1])
    // A reload: same workspace, the flash gone.
    const reload = await b.get('/admin/probe')
    expect(reload.text).toMatch(/<option value="[^"]+" selected>Other agency<\/option>/)
    expect(reload.text).not.toContain('Now working in')
    expect(Number(/<p>(\d+)<\/p>/.exec(reload.text)![1])).toBe(inOther)
    expect(inOther).not.toBe(inDefault)
  })

  test('a member sees only its workspaces in the switcher; owners also "All workspaces"', async () => {
    const member = (await (await as('member-elsewhere')).get('/admin')).text
    expect(member).toContain('Other agency')
    expect(member).not.toContain('Default workspace</option>')
    expect(member).not.toContain('All workspaces')
    const owner = (await (await as('owner')).get('/admin')).text
    expect(owner).toContain('All workspaces')
    expect(owner).toContain('Default workspace</option>')
  })
})

describe('navigation', () => {
  test.each<[Who, boolean]>([
    ['owner', true],
    ['admin', true],
    ['member', false],
    ['viewer', false],
  ])('%s: the nav lists API keys → %p (the verbs enforce it either way)', async (who, listed) => {
    const html = (await (await as(who)).get('/admin')).text
    const nav = /<nav id="sections"[\s\S]*?<\/nav>/.exec(html)![0]
    expect(nav).toContain('href="/admin"')
    expect(nav.includes('href="/admin/api-keys"')).toBe(listed)
  })

  test('the current section is marked, and only it', async () => {
    const html = (await (await as('owner')).get('/admin/api-keys/new')).text
    const nav = /<nav id="sections"[\s\S]*?<\/nav>/.exec(html)![0]
    expect(nav.match(/aria-current="page"/g)?.length).toBe(1)
    expect(nav).toContain('<a href="/admin/api-keys" aria-current="page">')
  })

  test('a trailing slash redirects to the page without it', async () => {
    const b = await as('owner')
    expect((await b.get('/admin/api-keys/')).location).toBe('/admin/api-keys')
    expect((await b.get('/admin/')).location).toBe('/admin')
  })
})
