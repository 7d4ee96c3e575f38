import { api, BenchError, type Herald } from './lib'

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
