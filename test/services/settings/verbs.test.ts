import { expect, test } from 'bun:test'
import { loadConfig } from '../../../src/config'
import type { Ctx } from '../../../src/context'
import { getSettingsVerb } from '../../../src/services/settings/verbs'

// What the settings page is given for each setting; a URL's password never reaches it.
test("the database URL is shown without its password; a URL's other parts stay readable", async () => {
  const config = loadConfig(
    {},
    {
      HERALD_DATABASE_URL: 'postgres://herald:s3cret-pw@db.internal:5432/herald',
    },
  )
  const rows = await getSettingsVerb.run({ config } as Ctx, {}, undefined, {})
  const row = rows.find((r) => r.key === 'databaseUrl')
  expect(row).toMatchObject({ env: 'HERALD_DATABASE_URL', set: true })
  expect(row?.value).toBe('postgres://herald:********@db.internal:5432/herald')
  expect(JSON.stringify(rows)).not.toContain('s3cret-pw')
})
