// Reading a body (a request's or a remote answer's) without trusting its size: a declared
// Content-Length over the limit is refused before a byte is read, and a streamed body is cut (the
// stream cancelled) as soon as it passes the limit, so at most about `limit` bytes are ever held.

export class BodyTooLarge extends Error {}

/** The whole body when it is at most `limit` bytes; else BodyTooLarge, having read little or nothing. */
export async function readCappedBody(
  res: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limit: number,
): Promise<Uint8Array> {
  const declared = res.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) {
    await res.body?.cancel().catch(() => {})
    throw new BodyTooLarge(`the body is larger than ${limit} bytes`)
  }
  if (!res.body) return new Uint8Array(0)
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > limit) throw new BodyTooLarge(`the body is larger than ${limit} bytes`)
      chunks.push(value)
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return Buffer.concat(chunks)
}
