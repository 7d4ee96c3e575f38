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

/** The import loop's per-row writes (db/imports.ts on SQLite, postgres/imports.ts on PostgreSQL). */
export interface ImportWriter {
  /** Inserts the contact unless its email exists in the client; true when inserted. */
  insertContact(c: ImportedContact): Promise<boolean>
  /** The client's clients.no, or null when the client is gone. */
  clientNo(clientId: string): Promise<number | null>
  /** The client's contact with this email (case-insensitive). */
  existingContact(clientNo: number, email: string): Promise<ExistingContact | null>
  updateContact(id: string, values: ContactUpdate, at: number): Promise<void>
  /**
   * Makes the contact a confirmed member of the list, with its consent row: `added` when new,
   * `confirmed` when it was waiting for a double opt-in, null when nothing changed.
   */
  addMember(
    clientId: string,
    listId: string,
    contactId: string,
    at: number,
  ): Promise<'added' | 'confirmed' | null>
  bumpClientContacts(clientId: string, by: number): Promise<void>
  /** `confirmed` members more, `fromUnconfirmed` of them were waiting for a double opt-in. */
  bumpListMembers(listId: string, confirmed: number, fromUnconfirmed: number, at: number): Promise<void>
}
