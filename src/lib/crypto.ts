import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex')
}

export function hmacBase64Url(key: Uint8Array, input: string): string {
  return createHmac('sha256', key).update(input).digest('base64url')
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}

/** Base62 text of `bytes` random bytes (big-number conversion, so every byte counts). */
export function randomBase62(bytes: number): string {
  let n = BigInt(`0x${randomBytes(bytes).toString('hex')}`)
  const length = Math.ceil((bytes * 8) / Math.log2(62))
  let out = ''
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return out
}

/**
 * AES-256-GCM for secrets at rest. Output: `v1:<iv>:<tag>:<ciphertext>` in base64url, so the
 * format can change later without guessing what a stored value is.
 */
export function encryptSecret(key: Uint8Array, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    data.toString('base64url'),
  ].join(':')
}

export function decryptSecret(key: Uint8Array, stored: string): string {
  const [version, iv, tag, data] = stored.split(':')
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown secret format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
}
