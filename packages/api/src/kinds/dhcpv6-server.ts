import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { DNSMASQ, dnsmasqIntents } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { ipv6Formats, suffixValue } from "./ipv6-prefix.js";

export const dhcpv6ServerSpec = t.object({
  interface: t.interfaceRef().describe("the LAN Interface to serve (it needs an IPv6RouterAdvertisement)"),
  mode: t.withDefault(
    t.enum("stateless", "stateful", "both").describe("stateless: SLAAC + DHCPv6 information; stateful: addresses by DHCPv6 only; both: SLAAC and DHCPv6 addresses"),
    "stateless",
  ),
  addressPool: t.optional(
    t.object({
      start: ipv6Formats.suffix().describe("first interface identifier handed out, e.g. ::1000 (the /64 comes from the interface's delegated prefix)"),
      end: ipv6Formats.suffix().describe("last interface identifier, e.g. ::1fff"),
      leaseTime: t.withDefault(formats.duration(), "12h"),
    }),
  ),
  dnsServers: t.withDefault(t.array(formats.ipv6(), { unique: true }).describe("DNS servers handed out (DHCPv6 option 23 and RDNSS)"), []),
  domainSearch: t.withDefault(t.array(formats.hostname(), { unique: true }).describe("search list (DHCPv6 option 24 and DNSSL)"), []),
});

export type DHCPv6ServerSpec = Infer<typeof dhcpv6ServerSpec>;

export const dhcpv6ServerKind = defineKind<DHCPv6ServerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv6Server",
  description:
    "DHCPv6 on a LAN through the managed dnsmasq: information only (stateless) or addresses from the interface's delegated /64 (stateful, both).",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: false,
  spec: dhcpv6ServerSpec,
  status: (res, ctx) => ({ fields: { interface: ctx.ifname(res.spec.interface), dnsServers: res.spec.dnsServers, configPath: DNSMASQ.configPath, dryRun: false } }),
  provides: { interface: "string", dnsServers: "stringList", sntpServers: "stringList", configPath: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    if (s.mode === "stateless" && s.addressPool) ctx.error(["addressPool"], "a stateless server hands out no addresses", "remove addressPool or use mode stateful/both");
    if (s.mode !== "stateless" && !s.addressPool) ctx.error(["addressPool"], `mode ${s.mode} needs an addressPool`);
    if (s.addressPool) {
      if (suffixValue(s.addressPool.start)! > suffixValue(s.addressPool.end)!) ctx.error(["addressPool", "end"], "is before start");
      if (durationMs(s.addressPool.leaseTime) < 120_000) ctx.error(["addressPool", "leaseTime"], "must be at least 2m (dnsmasq's minimum)");
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
