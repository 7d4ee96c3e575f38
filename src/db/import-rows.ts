// The rows and writes of the CSV import, shared by its SQLite and PostgreSQL statements.

export interface ImportedContact {
  id: string
  clientId: string
  /** The client's clients.no (the head of the unique email key). */
  clientNo: number
  email: string
  firstName: string | null
  lastName: string | null
  company: string | null
  phone: string | null
  status: string
  timezone: string | null
  /** JSON text. */
  customFields: string
  at: number
}

/**
 * A new contact's values in the order of both stores' insert statements (`at` is its created_at
 * and updated_at; client_no last).
 */
export const insertValues = (c: ImportedContact) =>
  [
    c.id,
    c.clientId,
    c.email,
    c.firstName,
    c.lastName,
    c.company,
    c.phone,
    c.status,
    c.timezone,
    c.customFields,
    c.at,
    c.clientNo,
  ] as const

/** The members of an existing contact an import may update (snake_case, as stored). */
export interface ExistingContact {
  id: string
  first_name: string | null
  last_name: string | null
  company: string | null
  phone: string | null
  status: string
  timezone: string | null
  custom_fields: string
}

/** [first_name, last_name, company, phone, status, timezone, custom_fields] */
export type ContactUpdate = readonly [
  string | null,
  string | null,
  string | null,
  string | null,
  string,
  string | null,
  string,
]

/** An update of an existing contact: its id and the values it gets. */
export interface ContactUpdateOf {
  id: string
  values: ContactUpdate
}

/**
 * The import's writes, a batch's rows at a time (db/imports.ts on SQLite, one prepared statement
 * per row; postgres/imports.ts on PostgreSQL, one statement per batch, as a round trip per row
 * would bound the import there).
 */
export interface ImportWriter {
  /** The client's clients.no, or null when the client is gone. */
  clientNo(clientId: string): Promise<number | null>
  /**
   * Inserts, in order, each contact whose email the client does not have yet (nor an earlier
   * contact of the same call); answers the ids inserted.
   */
  insertContacts(cs: readonly ImportedContact[]): Promise<Set<string>>
  /** The client's contacts with these emails (case-insensitive), by the email as asked. */
  existingContacts(clientNo: number, emails: readonly string[]): Promise<Map<string, ExistingContact>>
  updateContacts(updates: readonly ContactUpdateOf[], at: number): Promise<void>
  /**
   * Makes each contact a confirmed member of the list, with a consent row where that changed
   * something: `added` were new members, `confirmed` were waiting for a double opt-in.
   */
  addMembers(
    clientId: string,
    listId: string,
    contactIds: readonly string[],
    at: number,
  ): Promise<{ added: number; confirmed: number }>
  bumpClientContacts(clientId: string, by: number): Promise<void>
  /** `confirmed` members more, `fromUnconfirmed` of them were waiting for a double opt-in. */
  bumpListMembers(listId: string, confirmed: number, fromUnconfirmed: number, at: number): Promise<void>
  /**
   * After the last batch: the planner learns how large the contacts and memberships grew, so
   * that the first campaign to the list is planned for its real size.
   */
  refreshStatistics(): Promise<void>
}
