// The daemon's config file, written by `routerd serve` from one DNSResolver and the DNSZone, DNSForwarder
// and DNSUpstream resources that belong to it. Strict: every problem is reported at once, with its path.
import { isIP } from "node:net";
import { typeFromName } from "../wire/constants.js";
import { nameFromText } from "../wire/name.js";
import { parseRecordData, ZONE_RECORD_TYPES } from "../zones/record-text.js";
import { parseAnchor } from "../dnssec/anchors.js";
import { isObject, Reader } from "./check.js";
import { parseCidr } from "./cidr.js";
import { ConfigError, loadJsonConfig, parseJsonConfigText } from "@routerd/daemon-kit/cli";

export interface ListenConfig {
  name: string;
  addresses: string[];
  port: number;
  /** Client networks allowed to query (CIDRs); others get REFUSED. */
  sources: string[];
}

export interface CacheConfig {
  enabled: boolean;
  maxEntries: number;
  /** Seconds. */
  minTTL: number;
  maxTTL: number;
  negativeTTL: number;
  /** How long expired answers stay usable while upstreams fail (RFC 8767), seconds. */
  staleTTL: number;
}

export interface RecordConfig {
  name: string;
  type: (typeof ZONE_RECORD_TYPES)[number];
  data: string;
  ttl?: number;
}

export interface DhcpNamesConfig {
  /** The managed dnsmasq's lease file. */
  leaseFile: string;
  /** Names are <hostname>.<suffix>. */
  suffix: string;
  ttl: number;
  /** Only leases in these networks; empty: every lease. */
  networks: string[];
}

export interface ZoneConfig {
  /** The DNSZone's metadata.name. */
  name: string;
  zone: string;
  ttl: number;
  records: RecordConfig[];
  reverseZones: string[];
  dhcp?: DhcpNamesConfig;
}

export interface HealthcheckConfig {
  intervalMs: number;
  timeoutMs: number;
  failThreshold: number;
  passThreshold: number;
}

export interface ForwarderConfig {
  name: string;
  /** Suffixes; "." is the default route. */
  match: string[];
  upstreams: string[];
  /** Local zones (by DNSZone name) that answer these names instead of upstreams. */
  zones: string[];
  // No upstreams (and no zones) is allowed: an upstream waiting for its address. Names it matches get SERVFAIL.
  dnssecValidate: boolean;
  healthcheck: HealthcheckConfig;
}

export const PROTOCOLS = ["udp", "tcp", "dot", "doh"] as const;
export type UpstreamProtocol = (typeof PROTOCOLS)[number];

export interface UpstreamConfig {
  name: string;
  protocol: UpstreamProtocol;
  /** IP address, or (DoH) a host name resolved through `bootstrap`. */
  address: string;
  port: number;
  /** DoH path; a "{?dns}" suffix selects GET. */
  path: string;
  /** Name the TLS certificate must carry (dot, doh). */
  tlsName?: string;
  bootstrap: string[];
  sourceInterface?: string;
}

export interface QueryLogConfig {
  enabled: boolean;
  path: string;
}

export interface ResolverConfig {
  listen: ListenConfig[];
  cache: CacheConfig;
  metrics: { perUpstream: boolean };
  queryLog: QueryLogConfig;
  zones: ZoneConfig[];
  forwarders: ForwarderConfig[];
  upstreams: UpstreamConfig[];
  /** DS or DNSKEY records in presentation form; empty: the root zone's KSKs. */
  trustAnchors: string[];
}

export { ConfigError };

export const DEFAULT_HEALTHCHECK: HealthcheckConfig = { intervalMs: 5000, timeoutMs: 1000, failThreshold: 3, passThreshold: 1 };
const DEFAULT_PORT: Record<UpstreamProtocol, number> = { udp: 53, tcp: 53, dot: 853, doh: 443 };
const LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
const RESOURCE_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?$/;
const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/;

const dnsName = (s: string): string | undefined => {
  try {
    nameFromText(s);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};
const ip = (s: string): string | undefined => (isIP(s) === 0 ? "must be an IP address" : undefined);
const cidr = (s: string): string | undefined => (parseCidr(s) === undefined ? "must be an address or CIDR like 192.168.1.0/24" : undefined);
const resourceName = (s: string): string | undefined => (RESOURCE_NAME.test(s) ? undefined : "must be a resource name");

function parseListen(r: Reader, v: unknown): ListenConfig | undefined {
  const o = r.object(v, ["name", "addresses", "port", "sources"]);
  if (!o) return undefined;
  const name = r.at("name").string(o.name, resourceName);
  const addresses = r.at("addresses").list(o.addresses, (rr, a) => rr.string(a, ip));
  if (Array.isArray(o.addresses) && o.addresses.length === 0) r.at("addresses").fail("must list at least one address");
  // Port 0 lets the kernel choose (tests).
  const port = o.port === undefined ? 53 : r.at("port").int(o.port, 0, 65535);
  const sources = r.at("sources").list(o.sources, (rr, a) => rr.string(a, cidr), { optional: true });
  if (name === undefined || port === undefined) return undefined;
  return { name, addresses, port, sources };
}

function parseCache(r: Reader, v: unknown): CacheConfig {
  const defaults: CacheConfig = { enabled: true, maxEntries: 10_000, minTTL: 0, maxTTL: 86_400, negativeTTL: 3_600, staleTTL: 86_400 };
  if (v === undefined) return defaults;
  const o = r.object(v, ["enabled", "maxEntries", "minTTL", "maxTTL", "negativeTTL", "staleTTL"]);
  if (!o) return defaults;
  const pick = <K extends keyof CacheConfig>(k: K, read: (x: unknown) => CacheConfig[K] | undefined): CacheConfig[K] => (o[k] === undefined ? defaults[k] : (read(o[k]) ?? defaults[k]));
  const c: CacheConfig = {
    enabled: pick("enabled", (x) => r.at("enabled").bool(x)),
    maxEntries: pick("maxEntries", (x) => r.at("maxEntries").int(x, 1, 10_000_000)),
    minTTL: pick("minTTL", (x) => r.at("minTTL").int(x, 0, 86_400)),
    maxTTL: pick("maxTTL", (x) => r.at("maxTTL").int(x, 1, 604_800)),
    negativeTTL: pick("negativeTTL", (x) => r.at("negativeTTL").int(x, 0, 86_400)),
    staleTTL: pick("staleTTL", (x) => r.at("staleTTL").int(x, 0, 604_800)),
  };
  if (c.minTTL > c.maxTTL) r.at("minTTL").fail(`is above maxTTL (${c.maxTTL})`);
  return c;
}

function parseRecord(r: Reader, v: unknown): RecordConfig | undefined {
  const o = r.object(v, ["name", "type", "data", "ttl"]);
  if (!o) return undefined;
  const name = r.at("name").string(o.name, dnsName);
  const type = r.at("type").oneOf(o.type, ZONE_RECORD_TYPES);
  const data = r.at("data").string(o.data);
  const ttl = o.ttl === undefined ? undefined : r.at("ttl").int(o.ttl, 0, 604_800);
  if (name === undefined || type === undefined || data === undefined) return undefined;
  try {
    parseRecordData(typeFromName(type)!, data);
  } catch (err) {
    return r.at("data").fail((err as Error).message);
  }
  return { name, type, data, ...(ttl !== undefined ? { ttl } : {}) };
}

function parseDhcp(r: Reader, v: unknown): DhcpNamesConfig | undefined {
  const o = r.object(v, ["leaseFile", "suffix", "ttl", "networks"]);
  if (!o) return undefined;
  const leaseFile = r.at("leaseFile").string(o.leaseFile, (s) => (s.startsWith("/") ? undefined : "must be an absolute path"));
  const suffix = r.at("suffix").string(o.suffix, dnsName);
  const ttl = o.ttl === undefined ? 60 : r.at("ttl").int(o.ttl, 0, 86_400);
  const networks = r.at("networks").list(o.networks, (rr, a) => rr.string(a, cidr), { optional: true });
  if (leaseFile === undefined || suffix === undefined || ttl === undefined) return undefined;
  return { leaseFile, suffix, ttl, networks };
}

function parseZone(r: Reader, v: unknown): ZoneConfig | undefined {
  const o = r.object(v, ["name", "zone", "ttl", "records", "reverseZones", "dhcp"]);
  if (!o) return undefined;
  const name = r.at("name").string(o.name, resourceName);
  const zone = r.at("zone").string(o.zone, dnsName);
  const ttl = o.ttl === undefined ? 300 : r.at("ttl").int(o.ttl, 0, 604_800);
  const records = r.at("records").list(o.records, parseRecord, { optional: true });
  const reverseZones = r.at("reverseZones").list(o.reverseZones, (rr, a) => rr.string(a, dnsName), { optional: true });
  const dhcp = o.dhcp === undefined ? undefined : parseDhcp(r.at("dhcp"), o.dhcp);
  if (name === undefined || zone === undefined || ttl === undefined) return undefined;
  return { name, zone, ttl, records, reverseZones, ...(dhcp ? { dhcp } : {}) };
}

function parseHealthcheck(r: Reader, v: unknown): HealthcheckConfig {
  if (v === undefined) return DEFAULT_HEALTHCHECK;
  const o = r.object(v, ["intervalMs", "timeoutMs", "failThreshold", "passThreshold"]);
  if (!o) return DEFAULT_HEALTHCHECK;
  const read = (k: keyof HealthcheckConfig, min: number, max: number): number => (o[k] === undefined ? DEFAULT_HEALTHCHECK[k] : (r.at(k).int(o[k], min, max) ?? DEFAULT_HEALTHCHECK[k]));
  return { intervalMs: read("intervalMs", 100, 3_600_000), timeoutMs: read("timeoutMs", 10, 60_000), failThreshold: read("failThreshold", 1, 100), passThreshold: read("passThreshold", 1, 100) };
}

function parseForwarder(r: Reader, v: unknown): ForwarderConfig | undefined {
  const o = r.object(v, ["name", "match", "upstreams", "zones", "dnssecValidate", "healthcheck"]);
  if (!o) return undefined;
  const name = r.at("name").string(o.name, resourceName);
  const match = r.at("match").list(o.match, (rr, a) => rr.string(a, dnsName));
  const upstreams = r.at("upstreams").list(o.upstreams, (rr, a) => rr.string(a, resourceName), { optional: true });
  const zones = r.at("zones").list(o.zones, (rr, a) => rr.string(a, resourceName), { optional: true });
  const dnssecValidate = o.dnssecValidate === undefined ? false : (r.at("dnssecValidate").bool(o.dnssecValidate) ?? false);
  const healthcheck = parseHealthcheck(r.at("healthcheck"), o.healthcheck);
  if (name === undefined) return undefined;
  return { name, match, upstreams, zones, dnssecValidate, healthcheck };
}

function parseUpstream(r: Reader, v: unknown): UpstreamConfig | undefined {
  const o = r.object(v, ["name", "protocol", "address", "port", "path", "tlsName", "bootstrap", "sourceInterface"]);
  if (!o) return undefined;
  const name = r.at("name").string(o.name, resourceName);
  const protocol = r.at("protocol").oneOf(o.protocol, PROTOCOLS);
  const address = r.at("address").string(o.address, (s) => (isIP(s) !== 0 || (protocol === "doh" && dnsName(s) === undefined) ? undefined : protocol === "doh" ? "must be an IP address or host name" : "must be an IP address"));
  const port = o.port === undefined ? (protocol ? DEFAULT_PORT[protocol] : 53) : r.at("port").int(o.port, 1, 65535);
  const path = o.path === undefined ? "/dns-query" : r.at("path").string(o.path, (s) => (s.startsWith("/") ? undefined : "must start with /"));
  const tlsName = o.tlsName === undefined ? undefined : r.at("tlsName").string(o.tlsName, dnsName);
  const bootstrap = r.at("bootstrap").list(o.bootstrap, (rr, a) => rr.string(a, ip), { optional: true });
  const sourceInterface = o.sourceInterface === undefined ? undefined : r.at("sourceInterface").string(o.sourceInterface, (s) => (IFNAME.test(s) ? undefined : "must be an interface name"));
  if (name === undefined || protocol === undefined || address === undefined || port === undefined || path === undefined) return undefined;
  if (protocol === "doh" && isIP(address) === 0 && bootstrap.length === 0) r.at("bootstrap").fail("is required when a DoH upstream's address is a host name");
  if (protocol === "dot" && tlsName === undefined) r.at("tlsName").fail("is required for DNS over TLS (the certificate is checked against it)");
  return { name, protocol, address, port, path, bootstrap, ...(tlsName ? { tlsName } : {}), ...(sourceInterface ? { sourceInterface } : {}) };
}

/** Validates a parsed document; throws ConfigError listing every problem. */
export function parseResolverConfig(doc: unknown, source = "config"): ResolverConfig {
  const problems: string[] = [];
  const r = new Reader(problems, "");
  if (!isObject(doc)) throw new ConfigError(["the document must be an object"], source);
  const o = r.object(doc, ["listen", "cache", "metrics", "queryLog", "zones", "forwarders", "upstreams", "trustAnchors"])!;
  const listen = r.at("listen").list(o.listen, parseListen);
  const cache = parseCache(r.at("cache"), o.cache);
  const metricsObj = o.metrics === undefined ? {} : (r.at("metrics").object(o.metrics, ["perUpstream"]) ?? {});
  const perUpstream = metricsObj.perUpstream === undefined ? true : (r.at("metrics.perUpstream").bool(metricsObj.perUpstream) ?? true);
  const logObj = o.queryLog === undefined ? {} : (r.at("queryLog").object(o.queryLog, ["enabled", "path"]) ?? {});
  const logEnabled = logObj.enabled === undefined ? false : (r.at("queryLog.enabled").bool(logObj.enabled) ?? false);
  const logPath = logObj.path === undefined ? "" : (r.at("queryLog.path").string(logObj.path, (s) => (s.startsWith("/") ? undefined : "must be an absolute path")) ?? "");
  if (logEnabled && logPath === "") r.at("queryLog.path").fail("is required when the query log is enabled");
  const zones = r.at("zones").list(o.zones, parseZone, { optional: true });
  const forwarders = r.at("forwarders").list(o.forwarders, parseForwarder, { optional: true });
  const upstreams = r.at("upstreams").list(o.upstreams, parseUpstream, { optional: true });
  const trustAnchors = r.at("trustAnchors").list(
    o.trustAnchors,
    (rr, a) =>
      rr.string(a, (s) => {
        try {
          parseAnchor(s);
          return undefined;
        } catch (err) {
          return (err as Error).message;
        }
      }),
    { optional: true },
  );

  const unique = (what: string, names: string[]): void => {
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) problems.push(`${what}: duplicate name ${JSON.stringify(n)}`);
      seen.add(n);
    }
  };
  unique("listen", listen.map((l) => l.name));
  unique("zones", zones.map((z) => z.name));
  unique("forwarders", forwarders.map((f) => f.name));
  unique("upstreams", upstreams.map((u) => u.name));
  const upstreamNames = new Set(upstreams.map((u) => u.name));
  const zoneNames = new Set(zones.map((z) => z.name));
  forwarders.forEach((f, i) => {
    for (const u of f.upstreams) if (!upstreamNames.has(u)) problems.push(`forwarders[${i}].upstreams: no upstream named ${JSON.stringify(u)}`);
    for (const z of f.zones) if (!zoneNames.has(z)) problems.push(`forwarders[${i}].zones: no zone named ${JSON.stringify(z)}`);
  });
  if (listen.length === 0 && Array.isArray(o.listen)) problems.push("listen: must name at least one listener");
  if (problems.length > 0) throw new ConfigError(problems, source);
  return { listen, cache, metrics: { perUpstream }, queryLog: { enabled: logEnabled, path: logPath }, zones, forwarders, upstreams, trustAnchors };
}

export function parseResolverConfigText(text: string, source = "config"): ResolverConfig {
  return parseJsonConfigText(text, source, parseResolverConfig);
}

export function loadResolverConfig(path: string): Promise<ResolverConfig> {
  return loadJsonConfig(path, parseResolverConfig);
}

/** A host label usable in DNS names (DHCP client names are checked with it). */
export function isHostLabel(s: string): boolean {
  return LABEL.test(s);
}
