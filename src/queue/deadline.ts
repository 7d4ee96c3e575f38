import { type ChannelProvider, type Outgoing, ProviderError, type SendResult } from '../channels/types'

// The per-call deadline, so one slow provider call cannot hold up the sends behind it; shared
// by the main thread's sends and the send threads'.

/**
 * One provider call, bounded by HERALD_SEND_TIMEOUT_MS whatever the provider: past the deadline
 * the call's signal aborts (the SMTP pool closes the connection delivering it) and the send is a
 * retryable failure, even if the provider ignores the signal. The message keeps its lease until
 * the outcome is written; a provider that delivered it after all makes the retry a duplicate
 * with the same Message-ID, as after a crash.
 */
export async function sendWithin(
  provider: ChannelProvider,
  message: Outgoing,
  timeoutMs: number,
): Promise<SendResult> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ProviderError(
        `${provider.name}: no answer within ${timeoutMs} ms (send timed out)`,
        true,
        'ETIMEDOUT',
      )
      reject(err)
      controller.abort(err)
    }, timeoutMs)
  })
  try {
    return await Promise.race([provider.send(message, { signal: controller.signal }), deadline])
  } finally {
    clearTimeout(timer)
  }
}
