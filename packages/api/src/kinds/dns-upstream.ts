import { isIP } from "node:net";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { dnsName, resolverDaemonIntent, resolversOfUpstream } from "./dns-common.js";

export const dnsUpstreamSpec = t.object({
  protocol: t.enum("udp", "tcp", "dot", "doh").describe("udp and tcp: plain DNS; dot: DNS over TLS (RFC 7858); doh: DNS over HTTPS (RFC 8484)"),
  address: t.optional(t.string({ minLength: 1, maxLength: 253 }).describe("IP address; for doh also a host name (resolved through bootstrap)")),
  port: t.optional(formats.port().describe("default 53, dot 853, doh 443")),
  path: t.optional(t.string({ pattern: /^\/\S*$/, patternHint: "an absolute URL path" }).describe('doh: default /dns-query; a "{?dns}" suffix selects GET')),
  tlsName: t.optional(dnsName().describe("name the server's certificate must carry (dot: required)")),
  bootstrap: t.withDefault(t.array(formats.ip()).describe("plain DNS servers that resolve a doh host name"), []),
  sourceInterface: t.optional(t.ref("Interface").describe("send queries out of this interface (UDP)")),
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
    if (s.address === undefined) ctx.error(["address"], "is required", "address: 192.0.2.53");
    else if (isIP(s.address) === 0) {
      if (s.protocol !== "doh") ctx.error(["address"], `${JSON.stringify(s.address)} is not an IP address`, "only doh upstreams take a host name (with bootstrap servers)");
      else if (s.bootstrap.length === 0) ctx.error(["bootstrap"], `is required to resolve ${s.address}`, "bootstrap: [192.0.2.53]");
    }
    if (s.protocol === "dot" && s.tlsName === undefined) ctx.error(["tlsName"], "is required for dot: the server's certificate is checked against it", "tlsName: dns.example.net");
    if (s.path !== undefined && s.protocol !== "doh") ctx.error(["path"], "only applies to doh");
    if (s.bootstrap.length > 0 && s.protocol !== "doh") ctx.error(["bootstrap"], "only applies to doh");
    if (s.sourceInterface !== undefined && s.protocol !== "udp") ctx.error(["sourceInterface"], "is supported for udp upstreams only", "route the upstream's address out of that interface instead");
    if (resolversOfUpstream(ctx, res.metadata.name).length === 0) ctx.warn([], "no DNSForwarder uses this upstream");
  },
  intents: (res, view) => resolversOfUpstream(view, res.metadata.name).map((r) => resolverDaemonIntent(res.owner, r)),
});
