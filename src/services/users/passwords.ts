import { randomBase62 } from '../../lib/crypto'

// Hashing is deliberately slow (argon2id), so verbs do it in `prepare`, outside the write lock.

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' })

export const verifyPassword = (password: string, hash: string) =>
  Bun.password.verify(password, hash).catch(() => false)

/** A password for the operator to hand over: 18 random bytes in base62 (~25 characters). */
export const generatePassword = () => randomBase62(18)
