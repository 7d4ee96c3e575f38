// Errors of the OAuth endpoints. They answer in RFC 6749 §5.2's shape (`{error,
// error_description}`), not the REST error body, so they are not ServiceErrors.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** 401 only for invalid_client (RFC 6749 §5.2); everything else 400. */
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description)
  }

  body() {
    return { error: this.error, error_description: this.description }
  }
}
