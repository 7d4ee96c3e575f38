import { defineVerb } from '../verbs/define'
import { accessExport } from './access-export'
import { browseContacts, contactActivity } from './browse'
import { exportContacts } from './export'
import {
  BrowseContactsInput,
  ContactActivityInput,
  ContactRef,
  CreateContactInput,
  ExportContactsInput,
  ListContactsInput,
  SearchContactsInput,
  UpdateContactInput,
} from './inputs'
import { contactFieldErrors } from './normalize'
import { getContact, listContacts, searchContacts } from './read'
import { createContact, eraseContact, updateContact } from './write'

export const listContactsVerb = defineVerb({
  name: 'contacts.list',
  scope: 'any',
  input: ListContactsInput,
  mutates: false,
  run: async (ctx, input) => await listContacts(ctx, input),
})

export const createContactVerb = defineVerb({
  name: 'contacts.create',
  scope: 'contacts:write',
  input: CreateContactInput,
  mutates: true,
  check: (input) => contactFieldErrors(input),
  run: async (ctx, { client_id, ...fields }) => await createContact(ctx, fields, client_id),
})

export const searchContactsVerb = defineVerb({
  name: 'contacts.search',
  scope: 'any',
  input: SearchContactsInput,
  // A POST only because a search can be longer than a URL; it changes nothing.
  mutates: false,
  run: async (ctx, input) => await searchContacts(ctx, input),
})

export const getContactVerb = defineVerb({
  name: 'contacts.get',
  scope: 'any',
  input: ContactRef,
  mutates: false,
  run: async (ctx, { id }) => await getContact(ctx, id),
})

export const updateContactVerb = defineVerb({
  name: 'contacts.update',
  scope: 'contacts:write',
  input: UpdateContactInput,
  mutates: true,
  check: (input) => contactFieldErrors(input, true),
  run: async (ctx, { id, ...patch }) => await updateContact(ctx, id, patch),
})

export const eraseContactVerb = defineVerb({
  name: 'contacts.erase',
  scope: 'contacts:write',
  input: ContactRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await eraseContact(ctx, id),
})

export const exportContactsVerb = defineVerb({
  name: 'contacts.export',
  scope: 'contacts:read',
  input: ExportContactsInput,
  mutates: false,
  run: async (ctx, input) => await exportContacts(ctx, input),
})

/** The portal's contact table with status and list filters (portal-only read). */
export const browseContactsVerb = defineVerb({
  name: 'contacts.browse',
  scope: 'any',
  input: BrowseContactsInput,
  mutates: false,
  run: async (ctx, input) => await browseContacts(ctx, input),
})

/** One contact's event timeline, newest first (portal-only read). */
export const contactActivityVerb = defineVerb({
  name: 'contacts.activity',
  scope: 'any',
  input: ContactActivityInput,
  mutates: false,
  run: async (ctx, input) => await contactActivity(ctx, input),
})

/** Everything held about one person, as one JSON document (a data subject's access request). */
export const accessExportVerb = defineVerb({
  name: 'contacts.access-export',
  scope: 'any',
  input: ContactRef,
  mutates: false,
  run: async (ctx, { id }) => await accessExport(ctx, id),
})
