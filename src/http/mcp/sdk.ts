// The MCP server SDK, as every module of this door imports it. zod's compiled mode comes first:
// the SDK checks each message against its zod schemas several times (the transport's JSON-RPC
// parse and type guards, the request and result schemas), and zod's global compiled mode gives
// every schema constructed after it a generated fast path (same answers, same errors: a value
// the fast path refuses is parsed again by the regular parser). It must be evaluated before the
// SDK builds its schemas, which is why the door imports the SDK only through this module.
// zod is declared in package.json at the SDK's own version (one copy in node_modules); nothing else here uses it.
import 'zod/compile'

export * from '@modelcontextprotocol/server'
