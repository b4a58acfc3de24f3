import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { dnsName, fqdn, resolverDaemonIntent, resolversOfZone } from "./dns-common.js";

const LABEL_OR_NAME = /^(@|[A-Za-z0-9_*]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?)$/;

export const dnsZoneSpec = t.object({
  zone: dnsName().describe("the zone this resolver answers for with authority, e.g. lan"),
  ttl: t.withDefault(t.int({ min: 0, max: 604_800 }).describe("seconds; records without their own TTL, the SOA and negative answers"), 300),
  records: t.withDefault(
    t.array(
      t.object({
        hostname: t.string({ pattern: LABEL_OR_NAME, patternHint: "a host name, relative to the zone (router) or absolute (router.lan.)" }),
        ipv4: t.optional(formats.ipv4()),
        ipv4From: t.optional(fromSource({ format: "ipv4", into: "ipv4" }).describe("the address from status, e.g. {resource: DHCPv4Client/wan, field: currentAddress}")),
        ipv6: t.optional(formats.ipv6()),
        ipv6From: t.optional(fromSource({ format: "ipv6", into: "ipv6" }).describe("the address from status, e.g. {resource: IPv6DelegatedAddress/lan, field: address}")),
        cname: t.optional(dnsName().describe("an alias: the name this one stands for (routerd extension)")),
        ttl: t.optional(t.int({ min: 0, max: 604_800 })),
      }),
    ),
    [],
  ),
  dhcpDerived: t.optional(
    t.object({
      sources: t.withDefault(t.array(t.string({ pattern: /^(DHCPv4Server\/)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, patternHint: "DHCPv4Server/<name>" })).describe("DHCP servers whose clients get names (default: all)"), []),
      hostnameSuffix: t.optional(dnsName().describe("names are <client hostname>.<suffix> (default: the zone)")),
      ttl: t.withDefault(t.int({ min: 0, max: 86_400 }), 60),
      leaseFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("lease file (default: the managed dnsmasq's)")),
      ddns: t.withDefault(t.bool().describe("dynamic DNS updates: not supported; names come from the lease file"), false),
    }),
  ),
  reverseZones: t.withDefault(t.array(t.object({ name: dnsName().describe("e.g. 1.168.192.in-addr.arpa") })), []),
  dnssec: t.optional(t.object({ enabled: t.withDefault(t.bool(), false), mode: t.optional(t.enum("validate", "sign")) })),
  ownerRefs: t.optional(t.array(t.object({ apiVersion: t.optional(t.string()), kind: t.string({ minLength: 1 }), name: t.string({ minLength: 1 }) })).describe("informational")),
});

export type DNSZoneSpec = Infer<typeof dnsZoneSpec>;

/** The record's absolute name: "@" is the apex, names without a trailing dot are relative to the zone. */
export function zoneRecordName(zone: string, hostname: string): string {
  const apex = fqdn(zone);
  if (hostname === "@") return apex;
  if (hostname.endsWith(".")) return hostname;
  const lower = hostname.toLowerCase();
  const bare = apex.slice(0, -1).toLowerCase();
  if (lower === bare || lower.endsWith(`.${bare}`)) return `${hostname}.`;
  return apex === "." ? `${hostname}.` : `${hostname}.${apex}`;
}

function within(name: string, zone: string): boolean {
  const n = fqdn(name).toLowerCase();
  const z = fqdn(zone).toLowerCase();
  return z === "." || n === z || n.endsWith(`.${z}`);
}

export const dnsZoneKind = defineKind<DNSZoneSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DNSZone",
  description: "A local zone the resolver answers with authority: records, DHCP client names (A/AAAA and PTR) and reverse zones.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: false,
  spec: dnsZoneSpec,
  check(res, ctx) {
    const s = res.spec;
    s.records.forEach((r, i) => {
      const set = [r.ipv4 ?? r.ipv4From, r.ipv6 ?? r.ipv6From, r.cname].filter((v) => v !== undefined).length;
      if (set === 0) ctx.error(["records", i], "needs ipv4, ipv6 or cname (or ipv4From/ipv6From)");
      if (r.cname !== undefined && set > 1) ctx.error(["records", i, "cname"], "an alias cannot have addresses too (RFC 1034 §3.6.2)", "put the addresses on the name the alias points to");
      const name = zoneRecordName(s.zone, r.hostname);
      if (!within(name, s.zone)) ctx.error(["records", i, "hostname"], `${name} is outside the zone ${fqdn(s.zone)}`);
    });
    if (s.dhcpDerived?.ddns) ctx.error(["dhcpDerived", "ddns"], "dynamic DNS updates are not supported", "remove ddns: DHCP client names are read from the lease file");
    if (s.dhcpDerived?.hostnameSuffix !== undefined && !within(s.dhcpDerived.hostnameSuffix, s.zone)) {
      ctx.error(["dhcpDerived", "hostnameSuffix"], `${fqdn(s.dhcpDerived.hostnameSuffix)} is outside the zone ${fqdn(s.zone)}`);
    }
    s.dhcpDerived?.sources.forEach((src, i) => {
      const name = src.replace(/^DHCPv4Server\//, "");
      if (!ctx.find("DHCPv4Server", name)) ctx.error(["dhcpDerived", "sources", i], `no DHCPv4Server named ${name}`);
    });
    if (s.dnssec?.enabled) ctx.error(["dnssec"], "signing local zones is not supported", "remove dnssec: local answers are authoritative and unsigned; DNSForwarder dnssecValidate validates forwarded answers");
    if (ctx.all("DNSResolver").length === 0) ctx.warn([], "no DNSResolver serves this zone");
    for (const other of ctx.all<DNSZoneSpec>("DNSZone")) {
      if (other.index < res.index && fqdn(other.spec.zone).toLowerCase() === fqdn(s.zone).toLowerCase()) ctx.error(["zone"], `already DNSZone/${other.metadata.name}'s`);
    }
  },
  intents: (res, view) => resolversOfZone(view, res.metadata.name).map((r) => resolverDaemonIntent(res.owner, r)),
  status: (res) => {
    const s = res.spec;
    const usable = s.records.filter((r) => r.ipv4 !== undefined || r.ipv6 !== undefined || r.cname !== undefined);
    // Records whose (optional) address source has no value yet: published once it has one.
    const pending = s.records
      .filter((r) => (r.ipv4From !== undefined && r.ipv4 === undefined) || (r.ipv6From !== undefined && r.ipv6 === undefined))
      .map((r) => ({ hostname: r.hostname, waitingFor: [r.ipv4 === undefined ? r.ipv4From : undefined, r.ipv6 === undefined ? r.ipv6From : undefined].filter((f) => f !== undefined).map((f) => `${f!.resource}.${f!.field}`) }));
    return { fields: { zone: fqdn(s.zone), records: usable.length, pendingRecords: pending } };
  },
  provides: { zone: "string", records: "int", pendingRecords: "objectList", updatedAt: "timestamp" },
});
