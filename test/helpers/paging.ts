import { expect } from 'bun:test'
import type { TestApp } from './app'

// What every resource list promises, checked per resource: newest first over a
// cursor the server signed, and a status filter that keeps only its status and refuses others.

interface Page {
  data: { id: string; status?: string }[]
  pagination: { total: number; has_more: boolean; next_cursor: string | null }
}

/**
 * Pages of two walk `path` newest first and a cursor the server did not sign is a 422 (the list
 * must hold three rows or more). Answers the first two pages.
 */
export async function expectNewestFirstPages(t: TestApp, path: string, key: string): Promise<[Page, Page]> {
  const page1: Page = (await t.call('GET', `${path}?limit=2`, { key })).body
  expect(page1.data).toHaveLength(2)
  expect(page1.pagination.has_more).toBe(true)
  const page2: Page = (await t.call('GET', `${path}?limit=2&cursor=${page1.pagination.next_cursor}`, { key }))
    .body
  expect(page2.data[0]!.id < page1.data[1]!.id).toBe(true)
  expect((await t.call('GET', `${path}?cursor=forged`, { key })).status).toBe(422)
  return [page1, page2]
}

/** `?status=` keeps only rows in that status (`status` must have some); an unknown one is a 422. */
export async function expectStatusFilter(t: TestApp, path: string, key: string, status: string) {
  const rows: Page['data'] = (await t.call('GET', `${path}?status=${status}&limit=200`, { key })).body.data
  expect(rows.length).toBeGreaterThan(0)
  expect(rows.every((r) => r.status === status)).toBe(true)
  expect((await t.call('GET', `${path}?status=running`, { key })).status).toBe(422)
}
