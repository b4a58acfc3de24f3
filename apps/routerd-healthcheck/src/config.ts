// The daemon's config file (written by `routerd serve` from the HealthCheck resources): its type and a
// strict parser. Every problem is collected and reported with the probe's index and name; unknown fields
// are errors, because a silently ignored field on a router is an outage or a hole.
import { isIP } from "node:net";
import { ConfigError, loadJsonConfig, parseJsonConfigText } from "@routerd/daemon-kit/cli";

export const PROBE_TYPES = ["icmp", "tcp", "http", "https", "dns"] as const;
export type ProbeType = (typeof PROBE_TYPES)[number];
export const DNS_QUERY_TYPES = ["A", "AAAA", "NS", "SOA", "TXT"] as const;
export type DnsQueryType = (typeof DNS_QUERY_TYPES)[number];

export interface DnsQuery {
  name: string;
  type: DnsQueryType;
}

export interface ProbeConfig {
  /** The HealthCheck's metadata.name; also the probe's resource name in status and events. */
  name: string;
  type: ProbeType;
  /** Address or host name. */
  target: string;
  /** Required for tcp; defaults http 80, https 443, dns 53; none for icmp. */
  port?: number;
  /** http/https: request path, default "/". */
  path?: string;
  /** http/https: statuses counted as success, default 200-399. */
  expectStatus?: number[];
  /** http/https: Host header and TLS server name (default: the target). */
  host?: string;
  /** http/https: text the first 64 KiB of the body must contain. */
  expectBody?: string;
  /** https: verify the certificate against `host` (or the target). Default false: liveness, not authenticity. */
  tlsVerify?: boolean;
  /** dns: the question to ask (required for dns). */
  query?: DnsQuery;
  intervalMs: number;
  timeoutMs: number;
  healthyThreshold: number;
  unhealthyThreshold: number;
  sourceAddress?: string;
  /** Linux interface name the probe is bound to. */
  interface?: string;
  /** SO_MARK on the probe's packets, so policy routing sends them out one uplink. */
  fwmark?: number;
}

export interface HealthcheckConfig {
  probes: ProbeConfig[];
}

export { ConfigError };

const DEFAULT_PORTS: Partial<Record<ProbeType, number>> = { http: 80, https: 443, dns: 53 };
const HTTP_TYPES: readonly ProbeType[] = ["http", "https"];

/** The port a probe connects to, defaults applied; undefined for icmp. */
export function effectivePort(probe: Pick<ProbeConfig, "type" | "port">): number | undefined {
  return probe.port ?? DEFAULT_PORTS[probe.type];
}

export function isHttpType(type: ProbeType): boolean {
  return HTTP_TYPES.includes(type);
}

const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?$/;
const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/;
const DNS_NAME = /^(?=.{1,253}\.?$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;
const TARGET = /^[A-Za-z0-9:._-]{1,253}$/;

type Check = (value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const int =
  (min: number, max: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : `must be an integer from ${min} to ${max}`;
const matches =
  (re: RegExp, what: string): Check =>
  (v) =>
    typeof v === "string" && re.test(v) ? undefined : `must be ${what}`;
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? undefined : `must be one of ${values.join(", ")}`;

const checkQuery: Check = (v) => {
  if (!isObject(v)) return "must be an object { name, type }";
  const unknown = Object.keys(v).filter((k) => k !== "name" && k !== "type");
  if (unknown.length > 0) return `has unknown field ${unknown.join(", ")}`;
  return matches(DNS_NAME, "a DNS name")(v.name) ?? (v.type === undefined ? undefined : oneOf(DNS_QUERY_TYPES)(v.type));
};

const checkStatuses: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((s) => int(100, 599)(s) === undefined) ? undefined : "must be a non-empty list of HTTP statuses (100-599)";

/** Field checks, in the order problems are reported. `required` fields must be present. */
const FIELDS: Record<keyof ProbeConfig, { check: Check; required?: boolean }> = {
  name: { check: matches(NAME, "1-253 letters, digits, '.', '_' or '-'"), required: true },
  type: { check: oneOf(PROBE_TYPES), required: true },
  target: { check: matches(TARGET, "an IP address or host name"), required: true },
  port: { check: int(1, 65535) },
  path: { check: matches(/^\/\S*$/, "an absolute URL path without spaces") },
  expectStatus: { check: checkStatuses },
  host: { check: matches(DNS_NAME, "a DNS name") },
  expectBody: { check: (v) => (typeof v === "string" && v.length > 0 && v.length <= 1024 ? undefined : "must be text of 1-1024 characters") },
  tlsVerify: { check: (v) => (typeof v === "boolean" ? undefined : "must be true or false") },
  query: { check: checkQuery },
  intervalMs: { check: int(100, 86_400_000), required: true },
  timeoutMs: { check: int(10, 3_600_000), required: true },
  healthyThreshold: { check: int(1, 100), required: true },
  unhealthyThreshold: { check: int(1, 100), required: true },
  sourceAddress: { check: (v) => (typeof v === "string" && isIP(v) !== 0 ? undefined : "must be an IP address") },
  interface: { check: matches(IFNAME, "a Linux interface name (1-15 characters)") },
  fwmark: { check: int(1, 0xffffffff) },
};

/** Rules between fields: [applies?, problem]. */
const RULES: ((p: ProbeConfig) => string | undefined)[] = [
  (p) => (p.type === "tcp" && p.port === undefined ? "port: is required for a tcp probe" : undefined),
  (p) => (p.type === "icmp" && p.port !== undefined ? "port: an icmp probe has no port" : undefined),
  (p) => (p.path !== undefined && !isHttpType(p.type) ? "path: only applies to http and https probes" : undefined),
  (p) => (p.expectStatus !== undefined && !isHttpType(p.type) ? "expectStatus: only applies to http and https probes" : undefined),
  (p) => (p.host !== undefined && !isHttpType(p.type) ? "host: only applies to http and https probes" : undefined),
  (p) => (p.expectBody !== undefined && !isHttpType(p.type) ? "expectBody: only applies to http and https probes" : undefined),
  (p) => (p.tlsVerify !== undefined && p.type !== "https" ? "tlsVerify: only applies to https probes" : undefined),
  (p) => (p.query !== undefined && p.type !== "dns" ? "query: only applies to dns probes" : undefined),
  (p) => (p.type === "dns" && p.query === undefined ? "query: is required for a dns probe" : undefined),
  (p) => (p.timeoutMs >= p.intervalMs ? `timeoutMs: must be shorter than intervalMs (${p.intervalMs})` : undefined),
  (p) =>
    p.sourceAddress !== undefined && isIP(p.target) !== 0 && isIP(p.target) !== isIP(p.sourceAddress)
      ? "sourceAddress: is not of the target's address family"
      : undefined,
];

function parseProbe(raw: unknown, where: string, problems: string[]): ProbeConfig | undefined {
  if (!isObject(raw)) {
    problems.push(`${where}: must be an object`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(FIELDS, key)) problems.push(`${where}: unknown field "${key}"`);
  }
  for (const [key, field] of Object.entries(FIELDS)) {
    const value = raw[key];
    if (value === undefined) {
      if (field.required) problems.push(`${where}: ${key}: is required`);
      continue;
    }
    const problem = field.check(value);
    if (problem !== undefined) problems.push(`${where}: ${key}: ${problem}`);
  }
  if (problems.length > before) return undefined;
  const probe = { ...raw } as unknown as ProbeConfig;
  if (probe.query !== undefined) probe.query = { name: probe.query.name, type: probe.query.type ?? "A" };
  for (const rule of RULES) {
    const problem = rule(probe);
    if (problem !== undefined) problems.push(`${where}: ${problem}`);
  }
  return problems.length > before ? undefined : probe;
}

/** Validates a parsed config document; throws ConfigError listing every problem. */
export function parseHealthcheckConfig(doc: unknown, source = "config"): HealthcheckConfig {
  const problems: string[] = [];
  if (!isObject(doc)) throw new ConfigError(["the document must be an object { probes: [...] }"], source);
  for (const key of Object.keys(doc)) if (key !== "probes") problems.push(`unknown field "${key}"`);
  if (!Array.isArray(doc.probes)) throw new ConfigError([...problems, "probes: must be a list"], source);

  const probes: ProbeConfig[] = [];
  const seen = new Map<string, number>();
  doc.probes.forEach((raw: unknown, i: number) => {
    const label = isObject(raw) && typeof raw.name === "string" ? ` (${raw.name})` : "";
    const probe = parseProbe(raw, `probes[${i}]${label}`, problems);
    if (probe === undefined) return;
    const first = seen.get(probe.name);
    if (first !== undefined) problems.push(`probes[${i}]${label}: name: duplicate of probes[${first}]`);
    else seen.set(probe.name, i);
    probes.push(probe);
  });
  if (problems.length > 0) throw new ConfigError(problems, source);
  return { probes };
}

/** Parses JSON text; syntax errors become a ConfigError too. */
export function parseHealthcheckConfigText(text: string, source = "config"): HealthcheckConfig {
  return parseJsonConfigText(text, source, parseHealthcheckConfig);
}

export function loadHealthcheckConfig(path: string): Promise<HealthcheckConfig> {
  return loadJsonConfig(path, parseHealthcheckConfig);
}
