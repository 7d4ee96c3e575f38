/** `listContacts` → `list_contacts`, `getCampaignStats` → `get_campaign_stats`. */
export function toolName(operationId: string): string {
  return operationId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
}
