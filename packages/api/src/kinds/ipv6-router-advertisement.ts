import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import { DNSMASQ, dnsmasqIntents } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import { dependsOn, fromSource, fromSources, type StatusSource } from "../status-source.js";
import type { DHCPv6InformationSpec } from "./dhcpv6-information.js";
import type { DHCPv6ServerSpec } from "./dhcpv6-server.js";
import { delegatedLanAddress, type IPv6DelegatedAddressSpec } from "./ipv6-delegated-address.js";

export const ipv6RouterAdvertisementSpec = t.object(
  {
  interface: t.interfaceRef().describe("the LAN Interface to send router advertisements on"),
  prefixFrom: t.optional(
    t.union<string[] | StatusSource>(
      "a list of IPv6DelegatedAddress names, or {resource: IPv6DelegatedAddress/NAME | DHCPv6PrefixDelegation/NAME, field, optional}",
      t.array(t.ref("IPv6DelegatedAddress"), { minItems: 1, unique: true }),
      fromSource({ format: "string" }),
    ).describe("the delegated /64s announced (default: every IPv6DelegatedAddress on the interface with announce: true); the object form waits for its source"),
  ),
  rdnss: t.withDefault(t.array(formats.ipv6(), { unique: true }).describe("DNS servers announced (RDNSS, RFC 8106)"), []),
  rdnssFrom: t.optional(fromSources({ format: "ipv6", into: "rdnss" }).describe("more DNS servers from status, e.g. {resource: DHCPv6PrefixDelegation/wan, field: dnsServers}")),
  dnssl: t.withDefault(t.array(formats.hostname(), { unique: true }).describe("search domains announced (DNSSL, RFC 8106)"), []),
  dnsslFrom: t.optional(fromSources({ format: "hostname", into: "dnssl" }).describe("more search domains from status, e.g. {resource: DHCPv6PrefixDelegation/wan, field: domainSearch}")),
  validLifetime: t.optional(formats.duration().describe("the original's name for lifetimes.prefix (dnsmasq announces one lifetime for both)")),
  preferredLifetime: t.refused("dnsmasq announces one prefix lifetime", "write validLifetime (or lifetimes.prefix); the delegation's own lifetimes apply below it"),
  prefix: t.refused("routerd announces the /64s on the interface (its IPv6DelegatedAddresses), not a literal prefix", "number the LAN with an IPv6DelegatedAddress, or use prefixFrom"),
  configPath: t.refused("routerd writes the managed dnsmasq's config itself", "remove configPath"),
  pidFile: t.refused("routerd supervises the managed dnsmasq itself", "remove pidFile"),
  dependsOn: t.optional(dependsOn().describe("stay Pending, keeping what exists, until these hold")),
  mtu: t.optional(t.int({ min: 1280, max: 65535 }).describe("MTU option (default: the interface's IPv6 MTU)")),
  mFlag: t.optional(t.bool().describe("managed flag; it follows the DHCPv6Server mode (stateful/both), set it only to assert that")),
  oFlag: t.optional(t.bool().describe("other-configuration flag; it follows DHCPv6Server/DHCPv6Information, set it only to assert that")),
  preference: t.withDefault(t.enum("low", "medium", "high").describe("default router preference (RFC 4191)"), "medium"),
  interval: t.withDefault(formats.duration().describe("maximum time between unsolicited advertisements (4s-30m)"), "10m"),
  lifetimes: t.withDefault(
    t.object({
      router: t.withDefault(formats.duration().describe("router lifetime; 0s: not a default router"), "30m"),
      prefix: t.optional(formats.duration().describe("upper bound for the announced prefix lifetimes (default: the delegation's own)")),
    }),
    { router: "30m" },
  ),
  },
  { aliases: { prfPreference: "preference" } },
);

export type IPv6RouterAdvertisementSpec = Infer<typeof ipv6RouterAdvertisementSpec>;

/** How dnsmasq serves the interface: its dhcp-range mode follows the DHCPv6 services configured there. */
export type Ipv6LanMode = "ra-only" | "ra-stateless" | "stateful" | "both";

export interface Ipv6LanServices {
  ra: Resource<IPv6RouterAdvertisementSpec>;
  server?: Resource<DHCPv6ServerSpec>;
  information?: Resource<DHCPv6InformationSpec>;
  mode: Ipv6LanMode;
  /** The flags dnsmasq sets for that mode. */
  flags: { m: boolean; o: boolean };
}

const FLAGS: Record<Ipv6LanMode, { m: boolean; o: boolean }> = {
  "ra-only": { m: false, o: false },
  "ra-stateless": { m: false, o: true },
  stateful: { m: true, o: true },
  both: { m: true, o: true },
};

/** The IPv6 LAN services of one interface (the first of each kind; duplicates are validation errors). */
export function ipv6LanServices(view: ConfigView, ra: Resource<IPv6RouterAdvertisementSpec>): Ipv6LanServices {
  const on = <S extends { interface: string }>(kind: string) => view.all<S>(kind).find((r) => r.spec.interface === ra.spec.interface);
  // A server in mode ra-only runs no DHCPv6: the interface gets router advertisements only.
  const configured = on<DHCPv6ServerSpec>("DHCPv6Server");
  const server = configured?.spec.mode === "ra-only" ? undefined : configured;
  const information = on<DHCPv6InformationSpec>("DHCPv6Information");
  const mode: Ipv6LanMode = server?.spec.mode === "stateful" ? "stateful" : server?.spec.mode === "both" ? "both" : server || information ? "ra-stateless" : "ra-only";
  return { ra, ...(server ? { server } : {}), ...(information ? { information } : {}), mode, flags: FLAGS[mode] };
}

export const ipv6RouterAdvertisementKind = defineKind<IPv6RouterAdvertisementSpec>({
  apiVersion: API_GROUPS.net,
  kind: "IPv6RouterAdvertisement",
  description:
    "Router advertisements on a LAN through the managed dnsmasq, announcing the interface's delegated /64s with the lease's lifetimes; a lost or changed prefix is announced as deprecated.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: true,
  spec: ipv6RouterAdvertisementSpec,
  status(res, ctx) {
    // dnsmasq announces the interface's delegated /64s; the first one is "the" prefix.
    const prefix = ctx
      .all<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress")
      .filter((a) => a.spec.interface === res.spec.interface)
      .map((a) => delegatedLanAddress(a, ctx).address)
      .find((a) => a !== undefined);
    return { fields: { interface: ctx.ifname(res.spec.interface), prefix: prefix && `${prefix.network}/64`, rdnss: res.spec.rdnss, configPath: DNSMASQ.configPath, dryRun: false } };
  },
  provides: { interface: "string", prefix: "string", rdnss: "stringList", configPath: "string", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    const interval = durationMs(s.interval);
    if (interval < 4000 || interval > 1_800_000) ctx.error(["interval"], "must be between 4s and 30m (RFC 4861 MaxRtrAdvInterval)");
    const router = durationMs(s.lifetimes.router);
    if (router !== 0 && (router < interval || router > 9_000_000)) ctx.error(["lifetimes", "router"], "must be 0s, or between interval and 9000s (RFC 4861)");
    if (s.lifetimes.prefix !== undefined && durationMs(s.lifetimes.prefix) < 3 * interval) {
      ctx.error(["lifetimes", "prefix"], "must be at least 3 × interval (dnsmasq never announces less)");
    }
    for (const other of ctx.all<IPv6RouterAdvertisementSpec>("IPv6RouterAdvertisement")) {
      if (other.index < res.index && other.spec.interface === s.interface) ctx.error(["interface"], `already advertised by IPv6RouterAdvertisement/${other.metadata.name}`);
    }
    const lan = ipv6LanServices(ctx, res);
    for (const flag of ["mFlag", "oFlag"] as const) {
      const want = s[flag];
      const has = flag === "mFlag" ? lan.flags.m : lan.flags.o;
      if (want !== undefined && want !== has) {
        ctx.error([flag], `is ${has} for this interface: dnsmasq sets M/O from the DHCPv6 service (${lan.mode})`, want ? "add a DHCPv6Server (stateful or both for M) on the interface" : "remove the DHCPv6 service, or the flag");
      }
    }
    if (lan.server?.spec.addressPool && s.lifetimes.prefix !== undefined) {
      ctx.error(["lifetimes", "prefix"], `DHCPv6Server/${lan.server.metadata.name}'s leaseTime already caps the announced lifetimes (dnsmasq uses one value for both)`);
    }
    // dnsmasq announces every global /64 of the interface: what it announces is decided by the addresses.
    const here = ctx.all<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress").filter((a) => a.spec.interface === s.interface);
    for (const a of here.filter((x) => !x.spec.announce)) {
      ctx.error(["interface"], `IPv6DelegatedAddress/${a.metadata.name} on this interface has announce: false, but dnsmasq announces every global /64 of the interface`, "use announce: true or put that address on another interface");
    }
    if (s.validLifetime !== undefined && s.lifetimes.prefix !== undefined) ctx.error(["validLifetime"], "is the original's name for lifetimes.prefix, which is set too", "keep one of them");
    const cap = s.validLifetime ?? s.lifetimes.prefix;
    if (s.validLifetime !== undefined && durationMs(s.validLifetime) < 3 * interval) ctx.error(["validLifetime"], "must be at least 3 × interval (dnsmasq never announces less)");
    if (lan.server?.spec.addressPool && s.validLifetime !== undefined && cap !== undefined) {
      ctx.error(["validLifetime"], `DHCPv6Server/${lan.server.metadata.name}'s leaseTime already caps the announced lifetimes (dnsmasq uses one value for both)`);
    }
    const from = s.prefixFrom;
    if (from && !Array.isArray(from)) {
      // The original's object form names the /64's source: its address here, or the delegation numbering one here.
      const [kind, name] = from.resource.split("/") as [string, string];
      const fits = kind === "IPv6DelegatedAddress" ? here.some((a) => a.metadata.name === name) : kind === "DHCPv6PrefixDelegation" && here.some((a) => a.spec.prefixDelegation === name);
      if (!fits) ctx.error(["prefixFrom", "resource"], `${from.resource} does not number Interface ${s.interface}`, "name an IPv6DelegatedAddress on this interface, or the DHCPv6PrefixDelegation one of them numbers from");
    }
    const names = Array.isArray(from) ? from : undefined;
    names?.forEach((name, i) => {
      if (!here.some((a) => a.metadata.name === name)) ctx.error(["prefixFrom", i], `IPv6DelegatedAddress/${name} is not on Interface ${s.interface}`);
    });
    const missing = names ? here.filter((a) => a.spec.announce && !names.includes(a.metadata.name)) : [];
    if (missing.length) ctx.error(["prefixFrom"], `would leave out ${missing.map((a) => a.metadata.name).join(", ")}, but dnsmasq announces every global /64 of the interface`, "list them too, or omit prefixFrom");
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
