// Twilio reads the answer to an inbound-message webhook as TwiML: a <Message> in it is sent back
// to the texter, with no API call of ours; an empty <Response/> sends nothing.

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)

export const twiml = (reply: string | null): string =>
  reply === null
    ? '<?xml version="1.0" encoding="UTF-8"?><Response/>'
    : `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${escapeXml(reply)}</Message></Response>`
