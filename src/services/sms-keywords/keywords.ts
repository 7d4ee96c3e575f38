// The carrier keywords (CTIA, US carriers): the whole text, trimmed, in any case. Anything else
// someone texts back is a reply.

export type SmsKeyword = 'stop' | 'start' | 'help'

const KEYWORDS: ReadonlyMap<string, SmsKeyword> = new Map([
  ...['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'].map((k) => [k, 'stop'] as const),
  ...['START', 'UNSTOP', 'YES'].map((k) => [k, 'start'] as const),
  ...['HELP', 'INFO'].map((k) => [k, 'help'] as const),
])

export const keywordOf = (body: string): SmsKeyword | null => KEYWORDS.get(body.trim().toUpperCase()) ?? null
