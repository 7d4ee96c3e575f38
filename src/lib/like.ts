/** Escapes LIKE wildcards so a user's text matches literally (use with `ESCAPE '\'`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)
