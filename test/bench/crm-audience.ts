import { HTML, TEXT } from './fixtures'
import { api, BenchError, fmt, type Herald, progress } from './lib'

// The campaign benches' audience: a CRM-style export (names, companies, plans) imported into a
// list through the API, as an agency would bring a client's contacts in.

export function crmCsv(n: number): string {
  const rows = ['email,first_name,last_name,company,plan']
  for (let i = 0; i < n; i++)
    rows.push(`person${i}@customer${i % 50}.example,P${i},L${i},Company ${i % 97},${i % 3 ? 'pro' : 'team'}`)
  return rows.join('\n')
}

/** Imports `n` CRM rows into the list and waits until the import has completed. */
export async function importCrmAudience(
  h: Herald,
  clientId: string,
  listId: string,
  n: number,
): Promise<void> {
  const job = (
    await api<{ data: { id: string } }>(
      h,
      'POST',
      `/api/v1/contacts/imports?client_id=${clientId}&list_id=${listId}`,
      crmCsv(n),
      'text/csv',
    )
  ).body.data
  for (;;) {
    const s = (
      await api<{ data: { status: string; errors: unknown[] } }>(
        h,
        'GET',
        `/api/v1/contacts/imports/${job.id}`,
      )
    ).body.data
    if (s.status === 'completed') return
    if (s.status === 'failed')
      throw new BenchError(`import failed: ${JSON.stringify(s.errors).slice(0, 300)}`)
    await Bun.sleep(200)
  }
}

/**
 * The campaign benches' world: the first client, a list of `n` imported CRM contacts, and the
 * 2 KB "Spring" template their campaigns send.
 */
export async function crmCampaignWorld(h: Herald, n: number) {
  const clientId = (await api<{ data: { id: string }[] }>(h, 'GET', '/api/v1/clients')).body.data[0]!.id
  const q = `?client_id=${clientId}`
  const list = (await api(h, 'POST', `/api/v1/lists${q}`, { name: 'Everyone' })).body.data
  progress(`importing ${fmt(n)} contacts`)
  await importCrmAudience(h, clientId, list.id as string, n)
  return { clientId, q, list, template: await springTemplate(h, q) }
}

/** The 2 KB "Spring" template the campaign benches send (`q`: the client's query string). */
export async function springTemplate(h: Herald, q: string) {
  return (
    await api(h, 'POST', `/api/v1/templates${q}`, {
      name: 'Spring',
      subject: 'Spring for {{ contact.first_name }}',
      body_html: HTML,
      body_text: TEXT,
    })
  ).body.data
}
