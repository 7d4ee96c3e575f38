// SMS length and segment count (3GPP TS 23.038). GSM-7 when every character is in the default
// alphabet or its extension table (extension characters take two septets), else UCS-2.

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'
const GSM7_EXTENSION = '\f^{}\\[~]|€'

const basic = new Set(GSM7_BASIC)
const extension = new Set(GSM7_EXTENSION)

export interface SmsInfo {
  encoding: 'GSM-7' | 'UCS-2'
  /** Septets for GSM-7 (extension characters count two), UTF-16 code units for UCS-2. */
  length: number
  segments: number
}

export function smsInfo(text: string): SmsInfo {
  let septets = 0
  for (const ch of text) {
    if (basic.has(ch)) septets += 1
    else if (extension.has(ch)) septets += 2
    else {
      const units = text.length
      return { encoding: 'UCS-2', length: units, segments: segmentCount(units, 70, 67) }
    }
  }
  return { encoding: 'GSM-7', length: septets, segments: segmentCount(septets, 160, 153) }
}

/** One message up to `single`; beyond that every part carries a 6-byte UDH and holds `multi`. */
function segmentCount(length: number, single: number, multi: number): number {
  if (length === 0) return 0
  return length <= single ? 1 : Math.ceil(length / multi)
}
