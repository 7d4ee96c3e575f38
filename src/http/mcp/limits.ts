/** Up to 5 MB of CSV for import_contacts_csv, JSON-escaped (quotes and newlines double in the worst case). */
export const MCP_BODY_LIMIT = 12 * 1024 * 1024
