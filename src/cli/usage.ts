export const USAGE = `Herald — self-hosted marketing and sales engagement, in one executable.

Usage:
  herald serve [--port N] [--host H] [--data DIR]   start the server (creates and migrates the data file)
  herald migrate [--data DIR]                         apply pending migrations and exit
  herald keys create --name N --scopes a,b [--client ID] [--tier T] [--expires ISO] [--json] [--data DIR]
  herald keys list [--json] [--data DIR]
  herald keys revoke ID [--data DIR]
  herald users create --email E [--role owner|admin|member|viewer] [--clients ID,…] [--password P] [--json] [--data DIR]
  herald users reset-password EMAIL [--password P] [--data DIR]   (ends the user's sessions)
  herald users list [--json] [--data DIR]
  herald jobs list [--data DIR]                       list the scheduled jobs
  herald jobs run NAME [--data DIR]                   run a job now
  herald analytics rebuild [--client ID] [--json] [--data DIR]   recompute the analytics rollups from the messages
  herald backup FILE [--data DIR]                     online backup of the data file (VACUUM INTO)
  herald healthcheck [--port N] [--host H]            GET /healthz of the server on this machine: exit 0 on 200, else 1
  herald restore FILE [--data DIR]                    put a backup in place of the data file (the server stopped)
  herald doctor [--data DIR]                          check settings, public URL, DNS, sending accounts, disk, clock (exit 1 on a fail)
  herald api list                                     the API's operations as commands (name, method, path, summary)
  herald api NAME [--MEMBER value …] [--body JSON|@file|-] [--client ID] [--idempotency-key K] [--all] [--jsonl] [--json] [--url URL]
                                                      call a running server (HERALD_URL, key from HERALD_API_KEY or --key-file;
                                                      herald api NAME --help lists its flags; exit 1 API error, 3 unreachable)
  herald version | --version | -v                     print the version
  herald help | --help | -h                           this text

Configuration comes from flags, then HERALD_* environment variables, then defaults (see docs/operations.md).
`

export class UsageError extends Error {}

/**
 * node:util parseArgs' refusal of a command line (an option it does not know, a value missing or
 * given to a flag that takes none) as one line naming the option and pointing to `herald help`;
 * null for any other error. Its own text talks about positionals after '--', which is no help here.
 */
export function parseArgsProblem(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return null
  const quoted = /'([^' ]+)/.exec((err as Error).message)?.[1]
  // A short option inside a group (`-vx`) is named without its dash.
  const option = quoted === undefined ? undefined : quoted.startsWith('-') ? quoted : `-${quoted}`
  const hint = '(herald help lists the commands and their options)'
  if (option === undefined) return `bad command line: ${(err as Error).message} ${hint}`
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option} ${hint}`
  if (/does not take an argument/.test((err as Error).message)) return `${option} takes no value ${hint}`
  if (/argument missing/.test((err as Error).message)) return `${option} needs a value ${hint}`
  return `bad value for ${option} ${hint}`
}
