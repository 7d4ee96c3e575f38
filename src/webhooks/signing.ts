import { createHmac, randomBytes } from 'node:crypto'

// Standard Webhooks (https://www.standardwebhooks.com): `whsec_` + base64 of the key bytes;
// signature `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several separated by spaces.

export const SECRET_PREFIX = 'whsec_'

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

// The key bytes of each secret, decoded once (a burst signs thousands of bodies with one secret).
const keys = new Map<string, Buffer>()
function keyOf(secret: string): Buffer {
  let key = keys.get(secret)
  if (!key) {
    if (keys.size >= 1000) keys.clear()
    key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    keys.set(secret, key)
  }
  return key
}

export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The three headers of one attempt; every secret given signs (rotation overlap). */
export function signedHeaders(secrets: readonly string[], id: string, nowMs: number, body: string) {
  const timestamp = Math.floor(nowMs / 1000)
  return {
    'content-type': 'application/json',
    'user-agent': 'Herald-Webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestamp, body)).join(' '),
  }
}
