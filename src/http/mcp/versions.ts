/** The modern revision first; then the stateless 2025 revisions v1 SDK clients negotiate. */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']

/** The revision of the per-request envelope (2026-07-28); the others are the 2025 era's. */
export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSIONS: ReadonlySet<string> = new Set(
  PROTOCOL_VERSIONS.filter((v) => v !== MODERN_VERSION),
)
/** The envelope member that claims a revision (`params._meta`): what makes a request modern. */
export const ENVELOPE_CLAIM = 'io.modelcontextprotocol/protocolVersion'

export const MCP_PATH = '/mcp/v1'
