import type { AppContext } from '../../context'
import { OAUTH_SCOPES } from '../../lib/scopes'
import { GRANT_TYPES } from './grants'

/** RFC 8414 authorization-server metadata; the issuer is the public URL. */
export function authorizationServerMetadata(app: AppContext) {
  const base = app.config.publicUrl
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth2/authorize`,
    token_endpoint: `${base}/oauth2/token`,
    jwks_uri: `${base}/oauth2/jwks`,
    revocation_endpoint: `${base}/oauth2/revoke`,
    registration_endpoint: `${base}/oauth2/register`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: CLIENT_ID_METADATA_DOCUMENTS,
    service_documentation: `${base}/docs`,
  }
}

/** https `client_id` URLs (Client ID Metadata Documents, ./metadata-document.ts) are accepted. */
export const CLIENT_ID_METADATA_DOCUMENTS = true
