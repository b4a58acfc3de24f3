import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { DNSMASQ, dnsmasqIntents } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { dependsOn, fromSources } from "../status-source.js";
import { delegatedLanAddress, type IPv6DelegatedAddressSpec } from "./ipv6-delegated-address.js";
import { ipv6Formats, suffixValue } from "./ipv6-prefix.js";

const only = <T extends string>(allowed: T, message: string, hint: string) => (v: string) => (v === allowed ? undefined : { message: `${JSON.stringify(v)}: ${message}`, hint });

export const dhcpv6ServerSpec = t.object({
  interface: t.interfaceRef().describe("the LAN Interface to serve (it needs an IPv6RouterAdvertisement)"),
  mode: t.withDefault(
    t.enum("stateless", "stateful", "both", "ra-only").describe("stateless: SLAAC + DHCPv6 information; stateful: addresses by DHCPv6 only; both: SLAAC and DHCPv6 addresses; ra-only: no DHCPv6 at all"),
    "stateless",
  ),
  addressPool: t.optional(
    t.object({
      start: ipv6Formats.suffix().describe("first interface identifier handed out, e.g. ::1000 (the /64 comes from the interface's delegated prefix)"),
      end: ipv6Formats.suffix().describe("last interface identifier, e.g. ::1fff"),
      leaseTime: t.optional(formats.duration().describe("default: leaseTime, else 12h")),
    }),
  ),
  leaseTime: t.optional(formats.duration().describe("lease time of the addressPool (the original's top-level spelling)")),
  dnsSource: t.optional(t.enum("static", "self", "none").describe("static (default here): dnsServers; self: the interface's delegated address; none: no DNS option")),
  delegatedAddress: t.optional(t.ref("IPv6DelegatedAddress").describe("with dnsSource: self, the address handed out (default: the only IPv6DelegatedAddress on the interface)")),
  dnsServers: t.withDefault(t.array(formats.ipv6(), { unique: true }).describe("DNS servers handed out (DHCPv6 option 23 and RDNSS)"), []),
  dnsServerFrom: t.optional(fromSources({ format: "ipv6", into: "dnsServers" }).describe("more DNS servers from status, e.g. {resource: DHCPv6PrefixDelegation/wan, field: dnsServers}")),
  domainSearch: t.withDefault(t.array(formats.hostname(), { unique: true }).describe("search list (DHCPv6 option 24 and DNSSL)"), []),
  domainSearchFrom: t.optional(fromSources({ format: "hostname", into: "domainSearch" }).describe("more search domains from status")),
  sntpServers: t.withDefault(t.array(formats.ipv6(), { unique: true }).describe("SNTP servers handed out (DHCPv6 option 31)"), []),
  sntpServerFrom: t.optional(fromSources({ format: "ipv6", into: "sntpServers" }).describe("more SNTP servers from status, e.g. {resource: DHCPv6PrefixDelegation/wan, field: sntpServers}")),
  rapidCommit: t.withDefault(t.bool().describe("two-message exchange (dnsmasq's dhcp-rapid-commit applies to all LANs: any true turns it on)"), false),
  logDHCP: t.withDefault(t.bool().describe("log every DHCP exchange (dnsmasq's log-dhcp applies to all LANs: any false turns it off)"), true),
  dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
  server: t.optional(t.checked(t.enum("dnsmasq"), only("dnsmasq", "routerd serves DHCPv6 with its managed dnsmasq only", "remove server"))),
  managed: t.optional(t.checked(t.bool(), (v) => (v ? undefined : { message: "routerd does not observe a DHCPv6 server it does not run", hint: "remove the DHCPv6Server, or managed" }))),
  role: t.optional(t.checked(t.enum("server", "transit"), only("server", "a DHCPv6 relay (transit) is not supported", "remove role, or write role: server"))),
  defaultRoute: t.refused("DHCPv6 carries no default route; router advertisements do", "remove defaultRoute; the IPv6RouterAdvertisement's lifetimes.router (0s: not a default router) decides"),
  selfAddressPolicy: t.refused("SelfAddressPolicy is not supported", "use dnsSource: self with delegatedAddress"),
  listenInterfaces: t.refused("one DHCPv6Server serves one interface", "write one DHCPv6Server per LAN interface"),
  leaseFile: t.refused("routerd keeps the leases in <state-dir>/dnsmasq/main/leases", "remove leaseFile"),
  configPath: t.refused("routerd writes the managed dnsmasq's config itself", "remove configPath"),
  pidFile: t.refused("routerd supervises the managed dnsmasq itself", "remove pidFile"),
  stickyHoldDays: t.refused("dnsmasq has no sticky address hold", "remove stickyHoldDays"),
});

/** The pool's lease time: its own, the top-level one, or 12h. */
export function poolLeaseTime(spec: DHCPv6ServerSpec): string {
  return spec.addressPool?.leaseTime ?? spec.leaseTime ?? "12h";
}

/** The DNS servers handed out, by dnsSource (self: the interface's delegated address, while it has one). */
export function dhcpv6DnsServers(view: ConfigView, spec: DHCPv6ServerSpec): string[] {
  switch (spec.dnsSource ?? "static") {
    case "none":
      return [];
    case "static":
      return spec.dnsServers;
    case "self": {
      const own = view.all<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress").filter((a) => (spec.delegatedAddress ? a.metadata.name === spec.delegatedAddress : a.spec.interface === spec.interface));
      const a = own.length === 1 ? delegatedLanAddress(own[0]!, view).address : undefined;
      return a ? [a.address] : [];
    }
  }
}

export type DHCPv6ServerSpec = Infer<typeof dhcpv6ServerSpec>;

export const dhcpv6ServerKind = defineKind<DHCPv6ServerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv6Server",
  description:
    "DHCPv6 on a LAN through the managed dnsmasq: information only (stateless) or addresses from the interface's delegated /64 (stateful, both).",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: true,
  spec: dhcpv6ServerSpec,
  status: (res, ctx) => ({
    fields: { interface: ctx.ifname(res.spec.interface), dnsServers: dhcpv6DnsServers(ctx, res.spec), sntpServers: res.spec.sntpServers, configPath: DNSMASQ.configPath, dryRun: false },
  }),
  provides: { interface: "string", dnsServers: "stringList", sntpServers: "stringList", configPath: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    const pooled = s.mode === "stateful" || s.mode === "both";
    if (!pooled && s.addressPool) ctx.error(["addressPool"], `a ${s.mode} server hands out no addresses`, "remove addressPool or use mode stateful/both");
    if (pooled && !s.addressPool) ctx.error(["addressPool"], `mode ${s.mode} needs an addressPool`);
    if (s.leaseTime !== undefined && !s.addressPool) ctx.error(["leaseTime"], "is the lease time of the addressPool, and there is none");
    if (s.addressPool?.leaseTime !== undefined && s.leaseTime !== undefined) ctx.error(["leaseTime"], "addressPool.leaseTime is set too", "keep one of them");
    if (s.addressPool) {
      if (suffixValue(s.addressPool.start)! > suffixValue(s.addressPool.end)!) ctx.error(["addressPool", "end"], "is before start");
      if (durationMs(poolLeaseTime(s)) < 120_000) ctx.error(s.leaseTime ? ["leaseTime"] : ["addressPool", "leaseTime"], "must be at least 2m (dnsmasq's minimum)");
    }
    const dnsSource = s.dnsSource ?? "static";
    if (dnsSource !== "static" && (s.dnsServers.length || s.dnsServerFrom)) ctx.error(["dnsSource"], `${dnsSource} ignores dnsServers and dnsServerFrom`, "remove them, or write dnsSource: static");
    if (s.delegatedAddress !== undefined && dnsSource !== "self") ctx.error(["delegatedAddress"], "only applies with dnsSource: self");
    if (dnsSource === "self" && !s.delegatedAddress && ctx.all<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress").filter((a) => a.spec.interface === s.interface).length !== 1) {
      ctx.error(["dnsSource"], `self needs one IPv6DelegatedAddress on Interface ${s.interface}`, "name it with delegatedAddress");
    }
    if (!ctx.all<{ interface: string }>("IPv6RouterAdvertisement").some((r) => r.spec.interface === s.interface)) {
      ctx.error(["interface"], `Interface ${s.interface} has no IPv6RouterAdvertisement`, "clients only ask DHCPv6 when a router advertisement tells them to (M/O flags): add one");
    }
    for (const other of ctx.all<DHCPv6ServerSpec>("DHCPv6Server")) {
      if (other.index < res.index && other.spec.interface === s.interface) ctx.error(["interface"], `already served by DHCPv6Server/${other.metadata.name}`);
    }
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
