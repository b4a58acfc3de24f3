import { durationMs, formats, ipv4InPrefix, ipv4ToInt } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { DNSMASQ, dnsmasqIntents, staticAddressOf } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { fromSource, fromSources } from "../status-source.js";

export const dhcpv4ServerSpec = t.object({
  interface: t.interfaceRef().describe("the LAN Interface to serve (it needs an IPv4StaticAddress)"),
  addressPool: t.object({
    start: formats.ipv4(),
    end: formats.ipv4(),
    leaseTime: t.withDefault(formats.duration(), "12h"),
  }),
  gateway: t.optional(formats.ipv4().describe("router option (default: the interface's static address)")),
  gatewayFrom: t.optional(fromSource({ format: "ipv4", into: "gateway" }).describe("the router option from another resource's status, e.g. {resource: Interface/lan, field: primaryIPv4}")),
  dnsServers: t.withDefault(t.array(formats.ipv4(), { unique: true }).describe("DNS servers handed out (default: none)"), []),
  dnsServerFrom: t.optional(fromSources({ format: "ipv4", into: "dnsServers" }).describe("more DNS servers from status, e.g. {resource: DHCPv4Client/wan, field: dnsServers}")),
  domain: t.optional(formats.hostname()),
  domainFrom: t.optional(fromSource({ format: "hostname", into: "domain" }).describe("the domain name from status, e.g. {resource: DHCPv4Client/wan, field: domain}")),
  ntpServers: t.withDefault(t.array(formats.ipv4(), { unique: true }).describe("NTP servers handed out (option 42)"), []),
  ntpServerFrom: t.optional(fromSources({ format: "ipv4", into: "ntpServers" }).describe("more NTP servers from status, e.g. {resource: DHCPv4Client/wan, field: ntpServers}")),
  options: t.withDefault(
    t.array(t.object({ code: t.int({ min: 1, max: 254 }), value: t.string({ minLength: 1, pattern: /^[^\n,]+(,[^\n,]+)*$/, patternHint: "dnsmasq option values, comma separated" }) })).describe("extra DHCP options (dnsmasq dhcp-option syntax)"),
    [],
  ),
});

export type DHCPv4ServerSpec = Infer<typeof dhcpv4ServerSpec>;

export const dhcpv4ServerKind = defineKind<DHCPv4ServerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv4Server",
  description: "Hands out LAN addresses from a pool through the managed dnsmasq (DHCP only, port=0).",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: false,
  spec: dhcpv4ServerSpec,
  status: (res, ctx) => {
    const s = res.spec;
    return { fields: { interface: ctx.ifname(s.interface), dnsServers: s.dnsServers, ntpServers: s.ntpServers, domain: s.domain, configPath: DNSMASQ.configPath, dryRun: false } };
  },
  provides: { interface: "string", dnsServers: "stringList", ntpServers: "stringList", domain: "string", configPath: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    const own = staticAddressOf(ctx, s.interface);
    if (!own) {
      ctx.error(["interface"], `Interface ${s.interface} has no IPv4StaticAddress; the pool needs a subnet to live in`);
      return;
    }
    const subnet = { address: own.address, length: own.prefixLength };
    for (const f of ["start", "end"] as const) {
      if (!ipv4InPrefix(s.addressPool[f], subnet)) ctx.error(["addressPool", f], `${s.addressPool[f]} is outside ${own.address}/${own.prefixLength}`);
    }
    if (ipv4ToInt(s.addressPool.start) > ipv4ToInt(s.addressPool.end)) ctx.error(["addressPool", "end"], "is before start");
    const me = ipv4ToInt(own.address);
    if (me >= ipv4ToInt(s.addressPool.start) && me <= ipv4ToInt(s.addressPool.end)) ctx.error(["addressPool"], `contains the router's own address ${own.address}`);
    if (durationMs(s.addressPool.leaseTime) < 120_000) ctx.error(["addressPool", "leaseTime"], "must be at least 2m (dnsmasq's minimum)");
    for (const other of ctx.all<DHCPv4ServerSpec>("DHCPv4Server")) {
      if (other.index < res.index && other.spec.interface === s.interface) ctx.error(["interface"], `already served by DHCPv4Server/${other.metadata.name}`);
    }
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
