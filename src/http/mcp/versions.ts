/** The modern revision first; then the stateless 2025 revisions v1 SDK clients negotiate (DESIGN §9). */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']

export const MCP_PATH = '/mcp/v1'
