import { durationMs, formats, ipv4InPrefix, ipv4ToInt } from "../formats.js";
import { API_GROUPS, defineKind, type CheckContext, type ConfigView, type Resource } from "../kind.js";
import { DNSMASQ, dnsmasqIntents, staticAddressOf } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { fromSource, fromSources } from "../status-source.js";
import { dhcpOptionSpec } from "./dhcp-options.js";
import { dhcpClientOn } from "./dhcpv4-client.js";

const only = <T extends string>(allowed: T, message: string, hint: string) => (v: string) => (v === allowed ? undefined : { message: `${JSON.stringify(v)}: ${message}`, hint });

const poolSpec = t.object({
  start: formats.ipv4(),
  end: formats.ipv4(),
  leaseTime: t.withDefault(formats.duration(), "12h"),
});

export const dhcpv4ServerSpec = t.object(
  {
    interface: t.interfaceRef().describe("the LAN Interface to serve (it needs an IPv4StaticAddress)"),
    addressPool: t.optional(poolSpec.describe("the pool (or the original's rangeStart, rangeEnd and leaseTime)")),
    rangeStart: t.optional(formats.ipv4().describe("first address of the pool (instead of addressPool)")),
    rangeEnd: t.optional(formats.ipv4().describe("last address of the pool (instead of addressPool)")),
    leaseTime: t.optional(formats.duration().describe("lease time with rangeStart/rangeEnd (default 12h)")),
    gateway: t.optional(formats.ipv4().describe("router option (default: the interface's static address)")),
    gatewayFrom: t.optional(fromSource({ format: "ipv4", into: "gateway" }).describe("the router option from another resource's status, e.g. {resource: Interface/lan, field: primaryIPv4}")),
    routerSource: t.optional(t.enum("interfaceAddress", "static", "none").describe("interfaceAddress: the interface's address; static: gateway (router); none: no router option")),
    dnsSource: t.optional(
      t.enum("static", "self", "dhcpv4", "none").describe("static (default here): dnsServers; self: the interface's address; dhcpv4: the lease DNS of the DHCPv4Client on dnsInterface; none: no DNS option"),
    ),
    dnsInterface: t.optional(t.interfaceRef().describe("with dnsSource: dhcpv4, the interface whose DHCPv4Client lease gives the DNS servers")),
    dnsServers: t.withDefault(t.array(formats.ipv4(), { unique: true }).describe("DNS servers handed out (default: none)"), []),
    dnsServerFrom: t.optional(fromSources({ format: "ipv4", into: "dnsServers" }).describe("more DNS servers from status, e.g. {resource: DHCPv4Client/wan, field: dnsServers}")),
    domain: t.optional(formats.hostname()),
    domainFrom: t.optional(fromSource({ format: "hostname", into: "domain" }).describe("the domain name from status, e.g. {resource: DHCPv4Client/wan, field: domain}")),
    ntpServers: t.withDefault(t.array(formats.ipv4(), { unique: true }).describe("NTP servers handed out (option 42)"), []),
    ntpServerFrom: t.optional(fromSources({ format: "ipv4", into: "ntpServers" }).describe("more NTP servers from status, e.g. {resource: DHCPv4Client/wan, field: ntpServers}")),
    options: t.withDefault(t.array(dhcpOptionSpec).describe("extra DHCP options ({code | name, value}, dnsmasq dhcp-option values)"), []),
    authoritative: t.withDefault(t.bool().describe("answer clients of unknown leases at once (dnsmasq's dhcp-authoritative applies to all LANs: any false turns it off)"), true),
    logDHCP: t.withDefault(t.bool().describe("log every DHCP exchange (dnsmasq's log-dhcp applies to all LANs: any false turns it off)"), true),
    server: t.optional(t.checked(t.enum("dnsmasq", "kea", "dhcpd"), only("dnsmasq", "routerd serves LAN DHCP with its managed dnsmasq only", "remove server, or write server: dnsmasq"))),
    managed: t.optional(t.checked(t.bool(), (v) => (v ? undefined : { message: "routerd does not observe a DHCP server it does not run", hint: "remove the DHCPv4Server, or managed" }))),
    role: t.optional(t.checked(t.enum("server", "transit"), only("server", "a DHCP relay (transit) is not supported", "remove role, or write role: server"))),
    dns: t.optional(
      t.checked(t.object({ enabled: t.optional(t.bool()), cacheSize: t.optional(t.int()), upstreamInterface: t.optional(t.string()), upstreamServers: t.optional(t.array(t.string())), upstreamSource: t.optional(t.string()) }), (d) =>
        d.enabled === false && Object.keys(d).length === 1
          ? undefined
          : { message: "routerd's dnsmasq serves no DNS (port=0): DNS is a DNSResolver's job", hint: "remove dns (or write dns: {enabled: false}); hand the resolver's address out with dnsServers or dnsSource: self" },
      ),
    ),
    listenInterfaces: t.refused("one DHCPv4Server serves one interface", "write one DHCPv4Server per LAN interface"),
    leaseFile: t.refused("routerd keeps the leases in <state-dir>/dnsmasq/main/leases", "remove leaseFile"),
    profiles: t.refused("per-client profiles are not supported", "write a DHCPv4Server per LAN and DHCPv4Reservation for fixed hosts (with their own options)"),
    scopes: t.refused("scopes (per-client pools) are not supported", "write a DHCPv4Server per LAN and DHCPv4Reservation for fixed hosts (with their own options)"),
    stickyHoldDays: t.refused("dnsmasq has no sticky address hold", "remove stickyHoldDays; a DHCPv4Reservation pins an address"),
  },
  { aliases: { router: "gateway" } },
);

export type DHCPv4ServerSpec = Infer<typeof dhcpv4ServerSpec>;

/** The pool, from addressPool or the original's top-level rangeStart/rangeEnd/leaseTime (validation makes sure one is there). */
export function poolOf(spec: DHCPv4ServerSpec): { start: string; end: string; leaseTime: string } {
  return spec.addressPool ?? { start: spec.rangeStart!, end: spec.rangeEnd!, leaseTime: spec.leaseTime ?? "12h" };
}

/** The router option: undefined for none. */
export function routerOption(view: ConfigView, spec: DHCPv4ServerSpec): string | undefined {
  if (spec.routerSource === "none") return undefined;
  if (spec.routerSource === "interfaceAddress") return staticAddressOf(view, spec.interface)?.address;
  return spec.gateway ?? staticAddressOf(view, spec.interface)?.address;
}

/** The DNS servers handed out, by dnsSource. A lease the client does not hold (yet) gives none. */
export function dnsOption(view: ConfigView, spec: DHCPv4ServerSpec): string[] {
  switch (spec.dnsSource ?? "static") {
    case "none":
      return [];
    case "self": {
      const own = staticAddressOf(view, spec.interface)?.address;
      return own ? [own] : [];
    }
    case "dhcpv4": {
      const client = spec.dnsInterface ? dhcpClientOn(view, spec.dnsInterface) : undefined;
      const lease = client ? view.runtime.dhcpv4Lease(client.metadata.name) : undefined;
      return lease?.state === "present" ? lease.value.dnsServers : [];
    }
    case "static":
      return spec.dnsServers;
  }
}

function checkPool(res: Resource<DHCPv4ServerSpec>, ctx: CheckContext): void {
  const s = res.spec;
  if (s.addressPool && (s.rangeStart || s.rangeEnd || s.leaseTime)) {
    ctx.error(["addressPool"], "addressPool and rangeStart/rangeEnd/leaseTime both describe the pool", "keep one of them");
    return;
  }
  if (!s.addressPool && (!s.rangeStart || !s.rangeEnd)) {
    ctx.error([s.rangeStart ? "rangeEnd" : "rangeStart"], "the pool needs a start and an end", "write addressPool: {start, end}, or rangeStart and rangeEnd");
    return;
  }
  const pool = poolOf(s);
  const at = (f: "start" | "end" | "leaseTime") => (s.addressPool ? ["addressPool", f] : [{ start: "rangeStart", end: "rangeEnd", leaseTime: "leaseTime" }[f]]);
  const own = staticAddressOf(ctx, s.interface);
  if (!own) {
    ctx.error(["interface"], `Interface ${s.interface} has no IPv4StaticAddress; the pool needs a subnet to live in`);
    return;
  }
  const subnet = { address: own.address, length: own.prefixLength };
  for (const f of ["start", "end"] as const) {
    if (!ipv4InPrefix(pool[f], subnet)) ctx.error(at(f), `${pool[f]} is outside ${own.address}/${own.prefixLength}`);
  }
  if (ipv4ToInt(pool.start) > ipv4ToInt(pool.end)) ctx.error(at("end"), "is before start");
  const me = ipv4ToInt(own.address);
  if (me >= ipv4ToInt(pool.start) && me <= ipv4ToInt(pool.end)) ctx.error(s.addressPool ? ["addressPool"] : ["rangeStart"], `contains the router's own address ${own.address}`);
  if (durationMs(pool.leaseTime) < 120_000) ctx.error(at("leaseTime"), "must be at least 2m (dnsmasq's minimum)");
}

export const dhcpv4ServerKind = defineKind<DHCPv4ServerSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv4Server",
  description: "Hands out LAN addresses from a pool through the managed dnsmasq (DHCP only, port=0).",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: true,
  spec: dhcpv4ServerSpec,
  provides: { interface: "string", dnsServers: "stringList", ntpServers: "stringList", domain: "string", configPath: "string", dryRun: "bool" },
  status: (res, ctx) => {
    const s = res.spec;
    return { fields: { interface: ctx.ifname(s.interface), dnsServers: dnsOption(ctx, s), ntpServers: s.ntpServers, domain: s.domain, configPath: DNSMASQ.configPath, dryRun: false } };
  },
  check(res, ctx) {
    const s = res.spec;
    checkPool(res, ctx);
    if (s.routerSource === "static" && !s.gateway && !s.gatewayFrom) ctx.error(["routerSource"], "static needs gateway (router) or gatewayFrom");
    if (s.routerSource !== undefined && s.routerSource !== "static" && (s.gateway || s.gatewayFrom)) {
      ctx.error(["routerSource"], `${s.routerSource} ignores gateway`, "remove gateway, or write routerSource: static");
    }
    const dnsSource = s.dnsSource ?? "static";
    if (dnsSource !== "static" && (s.dnsServers.length || s.dnsServerFrom)) ctx.error(["dnsSource"], `${dnsSource} ignores dnsServers and dnsServerFrom`, "remove them, or write dnsSource: static");
    if (dnsSource === "dhcpv4") {
      if (!s.dnsInterface) ctx.error(["dnsInterface"], "dnsSource: dhcpv4 needs the interface whose DHCPv4Client gives the DNS servers");
      else if (!dhcpClientOn(ctx, s.dnsInterface)) ctx.error(["dnsInterface"], `no DHCPv4Client runs on ${s.dnsInterface}`, "or use dnsServerFrom: [{resource: DHCPv4Client/NAME, field: dnsServers}]");
    } else if (s.dnsInterface) ctx.error(["dnsInterface"], "only applies with dnsSource: dhcpv4");
    for (const other of ctx.all<DHCPv4ServerSpec>("DHCPv4Server")) {
      if (other.index < res.index && other.spec.interface === s.interface) ctx.error(["interface"], `already served by DHCPv4Server/${other.metadata.name}`);
    }
  },
  // With dnsSource: dhcpv4 the DNS option follows a lease: while it is unknown, the config stays as it is.
  holdsExisting(res, ctx) {
    if (res.spec.dnsSource !== "dhcpv4" || !res.spec.dnsInterface) return undefined;
    const client = dhcpClientOn(ctx, res.spec.dnsInterface);
    const lease = client ? ctx.runtime.dhcpv4Lease(client.metadata.name) : undefined;
    return lease?.state === "unknown" ? `DNS servers of DHCPv4Client/${client!.metadata.name} unknown (${lease.reason})` : undefined;
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
