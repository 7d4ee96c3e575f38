import type { AgentRegistrationRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'

/**
 * A registration as its agent sees it: the handle (`reg_…`) is known only to the caller of
 * register, so it is passed in rather than read from the row (only its hash is stored).
 * `scopes` are the approved ones once approved, else the requested ones.
 */
export function presentRegistration(row: AgentRegistrationRow, handle: string) {
  return {
    registration_id: handle,
    status: row.status,
    client_name: row.clientName,
    identity_type: row.identityType,
    scopes: row.approvedScopes ?? row.requestedScopes,
    requested_scopes: row.requestedScopes,
    client_id: row.clientId,
    expires_at: iso(row.expiresAt),
  }
}

/** A registration as the portal lists it (by record id; never the handle). */
export function presentForReview(row: AgentRegistrationRow) {
  return {
    id: row.id,
    status: row.status,
    client_name: row.clientName,
    identity_type: row.identityType,
    requested_scopes: row.requestedScopes,
    approved_scopes: row.approvedScopes,
    client_id: row.clientId,
    key_id: row.keyId,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    updated_at: isoOrNull(row.updatedAt),
  }
}
