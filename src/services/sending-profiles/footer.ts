import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { clients, sendingProfiles } from '../../db/schema'

// What a client's mail and pages name as the sender of record (CAN-SPAM: who sends, and a
// postal address): its profile's footer, the company defaulting to the client's name.

export interface Footer {
  company: string | null
  postal_address: string | null
}

export async function footerOf(db: Db, clientId: string): Promise<Footer> {
  const row = (
    await db
      .select({ name: clients.name, profile: sendingProfiles.profile })
      .from(clients)
      .leftJoin(sendingProfiles, eq(sendingProfiles.clientId, clients.id))
      .where(eq(clients.id, clientId))
      .limit(1)
  )[0]
  if (!row) return { company: null, postal_address: null }
  return {
    company: row.profile?.footer.company ?? row.name,
    postal_address: row.profile?.footer.postal_address ?? null,
  }
}
