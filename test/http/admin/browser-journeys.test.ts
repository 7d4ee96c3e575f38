// The journey pages in real Chromium: a journey with a condition and a split drawn as SVG (the
// XSS probe as its name and a node label, rendered inert), its node form, and an activation that
// is refused with the failing node outlined; axe and the page-problem recorder on each page.
import { describe, expect, test } from 'bun:test'
import { adminApi } from '../../helpers/admin-api'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'
import { expectNoInjectedMarkup, XSS } from '../../helpers/portal-seed'

const portal = await usePortal()
const herald = portal.herald
const api = await adminApi(herald)

describe('journey pages (browser)', () => {
  test('the graph, a node form, and a refused activation shown on the node', async () => {
    const tpl = await api('POST', '/api/v1/templates', { name: 'Hi', subject: 'Hi', body_text: 'Hi' })
    const j = await api('POST', '/api/v1/journeys', {
      name: XSS.template,
      nodes: [
        { id: 't', type: 'trigger', trigger: 'manual', next: 's1' },
        { id: 's1', type: 'send', template_id: tpl.id, next: 'c', label: XSS.name },
        {
          id: 'c',
          type: 'condition',
          rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
          yes: 'p',
          no: 'x',
        },
        {
          id: 'p',
          type: 'split',
          branches: [
            { weight: 1, next: 'x', name: 'A' },
            { weight: 1, next: 'w', name: 'B' },
          ],
        },
        { id: 'w', type: 'wait', duration: 'P1D', next: 'x' },
        { id: 'x', type: 'exit' },
        { id: 'orphan', type: 'exit' },
      ],
    })
    const page = await portal.pageAs('owner')
    await visit(page, `/admin/journeys/${j.id}`)
    expect(await page.locator('svg.journey-graph g.journey-node').count()).toBe(7)
    await expectNoInjectedMarkup(page)
    await expectNoSeriousViolations(page)
    await expectCleanPage(page)
    await follow(page, page.getByRole('button', { name: 'Activate' }))
    expect(await page.getByRole('alert').innerText()).toContain('orphan: is not reachable from the trigger')
    expect(await page.locator('g.journey-node[data-node="orphan"] rect').getAttribute('stroke')).toBe(
      '#b91c1c',
    )
    await screenshot(page, 'journey-refused')
    await follow(page, page.getByRole('link', { name: 'c', exact: true }).first())
    expect(await page.locator('#f-rule_groups').inputValue()).toContain('"operator": "exists"')
    await expectNoSeriousViolations(page)
    // The refused activation answered 422 (the page with the errors), as a form's retry does.
    await expectCleanPage(page, { allowFailedResponses: true })
  })
})
