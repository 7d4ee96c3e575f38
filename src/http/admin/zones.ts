// The time zones a portal form suggests (the account's and a client's time zone fields), with UTC
// listed even where the runtime's list leaves it out. Built once: the list has ~400 names.
const ZONES = Intl.supportedValuesOf('timeZone')

export const ZONE_CHOICES: readonly string[] = ZONES.includes('UTC') ? ZONES : ['UTC', ...ZONES]
