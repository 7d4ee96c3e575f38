// How common MCP clients are pointed at Herald: one source for the snippets of docs/api.md and the
// portal's "key for an AI assistant" page. `key` is the API key, or a placeholder for it.

export interface ClientConfig {
  client: string
  /** Where it goes: a command to run or a settings file. */
  where: string
  snippet: string
}

export function clientConfigs(mcpUrl: string, key: string): ClientConfig[] {
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return [
    {
      client: 'Claude Code',
      where: 'a terminal',
      snippet: `claude mcp add --transport http herald ${mcpUrl} --header "Authorization: Bearer ${key}"`,
    },
    {
      client: 'VS Code (GitHub Copilot)',
      where: '.vscode/mcp.json',
      snippet: json({
        servers: { herald: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${key}` } } },
      }),
    },
    {
      client: 'Cursor',
      where: '~/.cursor/mcp.json',
      snippet: json({ mcpServers: { herald: { url: mcpUrl, headers: { Authorization: `Bearer ${key}` } } } }),
    },
    {
      client: 'Claude Desktop and other stdio-only clients',
      where: 'claude_desktop_config.json (through the mcp-remote bridge)',
      snippet: json({
        mcpServers: {
          herald: {
            command: 'npx',
            // mcp-remote expands ${HERALD_AUTH} from env (keeps the space out of the argument).
            args: ['-y', 'mcp-remote', mcpUrl, '--header', `Authorization:${'$'}{HERALD_AUTH}`],
            env: { HERALD_AUTH: `Bearer ${key}` },
          },
        },
      }),
    },
  ]
}
