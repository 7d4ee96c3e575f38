import { rmSync } from 'node:fs'
import { defineVerb } from '../verbs/define'
import { getImport, listImports, prepareImport, queueImport } from './create'
import { CreateImportInput, ImportRef, ListImportsInput } from './inputs'

// The CSV comes as the door's upload; reading it (multipart parsing, moving the file) is the
// verb's I/O, done before the transaction that queues the job.
export const createImportVerb = defineVerb({
  name: 'imports.create',
  scope: 'contacts:write',
  input: CreateImportInput,
  mutates: true,
  prepare: async (ctx, input, { upload }) => await prepareImport(ctx, input, upload),
  run: async (ctx, input, prepared) => await queueImport(ctx, input, prepared),
  discard: (prepared) => rmSync(prepared.file, { force: true }),
})

export const getImportVerb = defineVerb({
  name: 'imports.get',
  scope: 'any',
  input: ImportRef,
  mutates: false,
  run: async (ctx, { id }) => await getImport(ctx, id),
})

/** The workspace's imports, newest first (portal-only read; REST has only GET by id). */
export const listImportsVerb = defineVerb({
  name: 'imports.list',
  scope: 'any',
  input: ListImportsInput,
  mutates: false,
  run: async (ctx, input) => await listImports(ctx, input),
})
