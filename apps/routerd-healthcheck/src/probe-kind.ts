/** The resource kind of every probe in GetStatus (the config kind it comes from). */
export const PROBE_KIND = "HealthCheck";
