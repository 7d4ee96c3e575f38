import { createPublicKey, generateKeyPair } from 'node:crypto'

export interface DkimKeyPair {
  /** PKCS#8 PEM, for the signer (store it encrypted). */
  privateKeyPem: string
  /** base64 of the SubjectPublicKeyInfo DER: the `p=` tag of the DNS record. */
  publicKey: string
}

/** A 2048-bit RSA key (RFC 8301 asks for at least 1024; 2048 is what receivers expect today). */
export function generateDkimKey(bits = 2048): Promise<DkimKeyPair> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      {
        modulusLength: bits,
        publicKeyEncoding: { type: 'spki', format: 'der' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      },
      (err, publicKey, privateKey) => {
        if (err) reject(err)
        else resolve({ privateKeyPem: privateKey, publicKey: publicKey.toString('base64') })
      },
    )
  })
}

export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`

/** Tags of a DKIM key record or DMARC record: `k=v; k=v`, names lower-cased, values trimmed. */
export function parseTags(record: string): Map<string, string> {
  const tags = new Map<string, string>()
  for (const part of record.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim())
  }
  return tags
}

/** Whether `p` (base64, white space allowed) decodes to a usable RSA public key. */
export function isRsaPublicKey(p: string): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.from(p.replace(/\s+/g, ''), 'base64'),
      format: 'der',
      type: 'spki',
    })
    return key.asymmetricKeyType === 'rsa'
  } catch {
    return false
  }
}
