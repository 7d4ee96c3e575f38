import { createImportVerb, getImportVerb, listImportsVerb } from '../../../services/imports/verbs'
import { listListsVerb } from '../../../services/lists/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, fragment, type PortalRequest, page, redirect } from '../types'
import { needsWorkspace, pageLinks, pageQuery } from './links'

// CSV imports: upload through the same imports.create verb as REST (its prepare
// moves the CSV into the imports directory, the background job reads it), the list of imports,
// and an import's page whose progress bar polls a fragment fed by the job's counters until the
// import is completed or failed.

const PATH = '/admin/imports'

/** What the progress fragment shows: the counters, the share done and the error rows. */
function progressOf(imp: Awaited<ReturnType<typeof getImport>>) {
  const total = imp.total_rows ?? 0
  const done = imp.status === 'completed' || imp.status === 'failed'
  const percent = done ? 100 : total > 0 ? Math.min(99, Math.floor((imp.processed / total) * 100)) : 0
  return { imp, percent, done, total: Math.max(total, imp.processed) }
}

const getImport = async (req: PortalRequest) => await invoke(getImportVerb, req.ctx, { id: req.params.id })

async function uploadForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  const lists = (await invoke(listListsVerb, req.ctx, { limit: 200 })).data
  return page('pages/imports/new', 'Import contacts', {
    errors,
    values: given,
    lists,
    no_workspace: needsWorkspace(req),
  })
}

export const importsSection = defineSection({
  path: PATH,
  title: 'Imports',
  order: 15,
  group: 'audience',
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const result = await invoke(listImportsVerb, req.ctx, pageQuery(req))
        return page('pages/imports/index', 'Imports', {
          imports: result.data.map((i) => ({ ...i, error_count: i.errors.length })),
          ...pageLinks(PATH, result.pagination),
        })
      },
    },
    { method: 'GET', path: `${PATH}/new`, handler: async (req) => await uploadForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        const input = {
          list_id: text(req, 'list_id'),
          update_existing: req.form?.get('update_existing') === 'on' || undefined,
        }
        // The file input was spooled as the form arrived; the verb moves it into the imports
        // directory (what it leaves, the portal removes).
        return await submit(
          req,
          createImportVerb,
          input,
          {
            done: (imp) =>
              redirect(`${PATH}/${imp.id}`, {
                kind: 'success',
                message: 'Upload received; importing now.',
              }),
            retry: async (errors) => await uploadForm(req, errors, values(req)),
          },
          { extras: { upload: req.upload } },
        )
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => page('pages/imports/show', 'Import', progressOf(await getImport(req))),
    },
    {
      method: 'GET',
      path: `${PATH}/:id/progress`,
      handler: async (req) => fragment('pages/imports/progress', progressOf(await getImport(req))),
    },
  ],
})
