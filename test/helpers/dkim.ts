import { createPrivateKey } from 'node:crypto'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { dkimRecordValue, generateDkimKey } from '../../src/lib/dkim-key'
import { splitTxt } from '../../src/lib/dns-txt'
import { DKIM_HEADER_FIELDS, type DkimSigning } from '../../src/services/domains/dkim'
import { startDnsServer } from './dns-server'

/**
 * A fresh RSA-2048 DKIM key for `domain`, published (as several strings, as zone files do) at
 * `<selector>._domainkey.<domain>` in a DNS server started for the test, and a mailauth check
 * that resolves through that server.
 */
export async function publishedDkimKey(domain: string, selector: string) {
  const dns = await startDnsServer()
  const key = await generateDkimKey()
  dns.zone.set(`${selector}._domainkey.${domain}`, [splitTxt(dkimRecordValue(key.publicKey))])
  const dkim: DkimSigning = {
    domainName: domain,
    keySelector: selector,
    privateKey: createPrivateKey(key.privateKeyPem),
    headerFieldNames: DKIM_HEADER_FIELDS,
  }
  const verify = (raw: Buffer) =>
    dkimVerify(raw, { resolver: (name: string, type: string) => dns.resolve(name, type) } as never)
  return { dns, key, dkim, verify }
}
