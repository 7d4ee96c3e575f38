// Operations that are not tools, on purpose, with the reason (docs/api.md, "MCP tool server"). Every other
// operation of the registry becomes a tool; test/http/mcp/tools.test.ts fails when one is
// neither a tool nor listed here.

export const EXCLUDED: Readonly<Record<string, string>> = {
  getHealth: 'no credential and nothing to act on; monitoring calls GET /api/v1/health',
  getProtectedResourceMetadata: 'a discovery document for OAuth clients, read before connecting',
  getMcpProtectedResourceMetadata: 'a discovery document for OAuth clients, read before connecting',
  exportContacts:
    'streams a CSV file of every contact; too large for a model’s context — use list_contacts or search_contacts, or the REST download',
  receiveInboundEmail: 'raw MIME handed over by a mail server, not something an assistant writes',
  registerAgent:
    'how an agent obtains a credential before it can connect; a connected caller already holds one',
  claimAgent: 'how an agent obtains a credential before it can connect; a connected caller already holds one',
  revokeAgentCredential:
    'takes the key itself in the body; a connected caller revokes keys with revoke_api_key',
}

/**
 * Operations whose body is a file: the tool takes the file as text instead (name and the
 * member that carries it). The operation's query members stay tool members.
 */
export const FILE_TOOLS: Readonly<
  Record<
    string,
    { name: string; member: string; contentType: string; limit: number; summary: string; description: string }
  >
> = {
  createContactImport: {
    name: 'import_contacts_csv',
    summary:
      'Import contacts from CSV text into the workspace (and optionally a list). The header row maps columns to fields (email required); other columns become custom fields; the delimiter is detected and quotes are handled. Rows that fail a check are skipped and reported.',
    member: 'csv',
    contentType: 'text/csv',
    limit: 5 * 1024 * 1024,
    description:
      'The CSV text, header row first (email required; first_name, last_name, company, phone, timezone, status; other columns become custom fields). Comma, semicolon or tab delimited. At most 5 MB; larger files go through the REST upload.',
  },
}
