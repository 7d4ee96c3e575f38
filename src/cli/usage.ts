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
  herald api list                                     the API's operations as commands (name, method, path, summary)
  herald api NAME [--MEMBER value …] [--body JSON|@file|-] [--client ID] [--idempotency-key K] [--all] [--jsonl] [--json] [--url URL]
                                                      call a running server (HERALD_URL, key from HERALD_API_KEY or --key-file;
                                                      herald api NAME --help lists its flags; exit 1 API error, 3 unreachable)
  herald version                                      print the version
  herald help                                         this text

Configuration comes from flags, then HERALD_* environment variables, then defaults (see README).
`

export class UsageError extends Error {}
