import { defineVerb } from '../verbs/define'
import { getImport, prepareImport, queueImport } from './create'
import { CreateImportInput, ImportRef } from './inputs'

// The CSV comes as the door's upload; reading it (multipart parsing, moving the file) is the
// verb's I/O, done before the transaction that queues the job.
export const createImportVerb = defineVerb({
  name: 'imports.create',
  scope: 'contacts:write',
  input: CreateImportInput,
  mutates: true,
  prepare: (ctx, input, { upload }) => prepareImport(ctx, input, upload),
  run: (ctx, input, prepared) => queueImport(ctx, input, prepared),
})

export const getImportVerb = defineVerb({
  name: 'imports.get',
  scope: 'any',
  input: ImportRef,
  mutates: false,
  run: (ctx, { id }) => getImport(ctx, id),
})
