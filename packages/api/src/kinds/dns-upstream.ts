import { isIP } from "node:net";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSources } from "../status-source.js";
import { dnsName, resolverDaemonIntent, resolversOfUpstream } from "./dns-common.js";

export const dnsUpstreamSpec = t.object({
  protocol: t.enum("udp", "tcp", "dot", "doh").describe("udp and tcp: plain DNS; dot: DNS over TLS (RFC 7858); doh: DNS over HTTPS (RFC 8484)"),
  address: t.optional(t.string({ minLength: 1, maxLength: 253 }).describe("IP address; for doh also a host name (resolved through bootstrap)")),
  addresses: t.withDefault(t.array(formats.ip(), { unique: true }).describe("more addresses of the same server, asked in turn (routerd extension; addressFrom adds here)"), []),
  addressFrom: t.optional(fromSources({ format: "ip", into: "addresses" }).describe("addresses from status, e.g. {resource: DHCPv4Client/wan, field: dnsServers}")),
  port: t.optional(formats.port().describe("default 53, dot 853, doh 443")),
  path: t.optional(t.string({ pattern: /^\/\S*$/, patternHint: "an absolute URL path" }).describe('doh: default /dns-query; a "{?dns}" suffix selects GET')),
  tlsName: t.optional(dnsName().describe("name the server's certificate must carry (dot: required)")),
  bootstrap: t.withDefault(t.array(formats.ip()).describe("plain DNS servers that resolve a doh host name"), []),
  bootstrapFrom: t.optional(fromSources({ format: "ip", into: "bootstrap" }).describe("bootstrap servers from status, e.g. {resource: DHCPv4Client/wan, field: dnsServers}")),
  sourceInterface: t.optional(t.interfaceRef().describe("send queries out of this interface (UDP)")),
});

export type DNSUpstreamSpec = Infer<typeof dnsUpstreamSpec>;

export const DNS_DEFAULT_PORTS = { udp: 53, tcp: 53, dot: 853, doh: 443 } as const;

export const dnsUpstreamKind = defineKind<DNSUpstreamSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DNSUpstream",
  description: "A server a DNSForwarder asks: plain UDP/TCP, DNS over TLS or DNS over HTTPS.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  supportsWhen: false,
  spec: dnsUpstreamSpec,
  check(res, ctx) {
    const s = res.spec;
    if (s.address === undefined && s.addresses.length === 0 && s.addressFrom === undefined) ctx.error(["address"], "is required", "address: 192.0.2.53, or addressFrom: [{resource: DHCPv4Client/wan, field: dnsServers}]");
    else if (s.address !== undefined && isIP(s.address) === 0) {
      if (s.protocol !== "doh") ctx.error(["address"], `${JSON.stringify(s.address)} is not an IP address`, "only doh upstreams take a host name (with bootstrap servers)");
      else if (s.bootstrap.length === 0 && s.bootstrapFrom === undefined) ctx.error(["bootstrap"], `is required to resolve ${s.address}`, "bootstrap: [192.0.2.53]");
    }
    if (s.protocol === "dot" && s.tlsName === undefined) ctx.error(["tlsName"], "is required for dot: the server's certificate is checked against it", "tlsName: dns.example.net");
    if (s.path !== undefined && s.protocol !== "doh") ctx.error(["path"], "only applies to doh");
    if (s.bootstrap.length > 0 && s.protocol !== "doh") ctx.error(["bootstrap"], "only applies to doh");
    if (s.sourceInterface !== undefined && s.protocol !== "udp") ctx.error(["sourceInterface"], "is supported for udp upstreams only", "route the upstream's address out of that interface instead");
    if (resolversOfUpstream(ctx, res.metadata.name).length === 0) ctx.warn([], "no DNSForwarder uses this upstream");
  },
  intents: (res, view) => resolversOfUpstream(view, res.metadata.name).map((r) => resolverDaemonIntent(res.owner, r)),
  status: (res) => {
    const s = res.spec;
    const address = upstreamAddresses(s)[0];
    return { fields: { address, url: address === undefined ? undefined : upstreamUrl(s, address) } };
  },
  provides: { address: "string", url: "string" },
});

/** Every address the upstream is reached at: `address`, then `addresses` (with what addressFrom added). */
export function upstreamAddresses(s: Pick<DNSUpstreamSpec, "address" | "addresses">): string[] {
  return [...new Set([...(s.address !== undefined ? [s.address] : []), ...s.addresses])];
}

/** udp://192.0.2.53:53, tls://192.0.2.53:853, https://dns.example:443/dns-query. */
export function upstreamUrl(s: Pick<DNSUpstreamSpec, "protocol" | "port" | "path" | "tlsName">, address: string): string {
  const port = s.port ?? DNS_DEFAULT_PORTS[s.protocol];
  const host = address.includes(":") ? `[${address}]` : address;
  if (s.protocol === "doh") return `https://${s.tlsName ?? host}:${port}${s.path ?? "/dns-query"}`;
  return `${s.protocol === "dot" ? "tls" : s.protocol}://${host}:${port}`;
}
