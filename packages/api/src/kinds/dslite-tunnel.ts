// DSLiteTunnel: DS-Lite's B4 (RFC 6333). An ip6tnl ip4ip6 tunnel from this router's IPv6 address to the
// AFTR, the B4's inner address 192.0.0.2/29, and (defaultRoute) IPv4's default route through it. The AFTR
// is an address, a name resolved through aftrDNSServers, or a name from DHCPv6 option 64 (aftrFrom).
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import type { RuntimeFact } from "../runtime.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { delegatedLanAddress, type IPv6DelegatedAddressSpec } from "./ipv6-delegated-address.js";
import { formatIpv6, ipv6Formats, parseIpv6 } from "./ipv6-prefix.js";
import { createdLinkIntent, ifnameProblem } from "./link-intent.js";

/** RFC 6333 §5.7: the B4's and the AFTR's inner addresses. */
export const B4_ADDRESS = "192.0.0.2";
export const AFTR_INNER_ADDRESS = "192.0.0.1";
const DSLITE_MTU = 1460;

export const dsliteTunnelSpec = t.object({
  interface: t.interfaceRef().describe("the IPv6 uplink the tunnel leaves by"),
  tunnelName: t.optional(formats.ifname().describe("the tunnel device's name (default: the resource's name)")),
  aftrIPv6: t.optional(formats.ipv6().describe("the AFTR's IPv6 address")),
  aftrFQDN: t.optional(formats.hostname().describe("the AFTR's name, resolved (AAAA) through aftrDNSServers")),
  aftrFrom: t.optional(fromSource({ format: "hostname", into: "aftrFQDN" }).describe("the AFTR's name from another resource's status (DHCPv6 option 64: aftrName)")),
  aftrDNSServers: t.withDefault(t.array(formats.ipv6()).describe("DNS servers to resolve the AFTR's name with (default: the host's)"), []),
  aftrAddressOrdinal: t.withDefault(t.int({ min: 0, max: 255 }).describe("which of the name's AAAA records to use (0: the first)"), 0),
  aftrAddressSelection: t.withDefault(t.enum("ordinal", "ordinalModulo").describe("ordinalModulo wraps the ordinal by the number of records"), "ordinal"),
  localAddressSource: t.withDefault(t.enum("interface", "static", "delegatedAddress").describe("where the tunnel's own IPv6 address comes from"), "interface"),
  localAddress: t.optional(formats.ipv6().describe("the tunnel's own IPv6 address (localAddressSource: static)")),
  localAddressFrom: t.optional(fromSource({ format: "ipv6", into: "localAddress" }).describe("the tunnel's own IPv6 address from another resource's status")),
  localDelegatedAddress: t.optional(t.ref("IPv6DelegatedAddress").describe("the delegated address to start from (localAddressSource: delegatedAddress)")),
  localAddressSuffix: t.optional(ipv6Formats.suffix().describe("replace the interface identifier of the delegated address (e.g. ::1:0:0:2)")),
  remoteAddress: t.withDefault(formats.ipv4().describe("the AFTR's inner IPv4 address (the B4's is 192.0.0.2/29)"), AFTR_INNER_ADDRESS),
  mtu: t.withDefault(t.int({ min: 1280, max: 65535 }).describe(`the tunnel's MTU (${DSLITE_MTU}: 1500 minus the 40-byte IPv6 header)`), DSLITE_MTU),
  encapsulationLimit: t.withDefault(t.string({ pattern: /^(none|\d{1,3})$/, patternHint: "none or 0-255" }).describe("the IPv6 tunnel encapsulation limit option (none: left out)"), "none"),
  defaultRoute: t.withDefault(t.bool().describe("IPv4's default route through the tunnel"), false),
  routeMetric: t.withDefault(t.int({ min: 0, max: 4294967295 }), 0),
  enabled: t.withDefault(t.bool().describe("false: no tunnel"), true),
});

export type DSLiteTunnelSpec = Infer<typeof dsliteTunnelSpec>;

const tunnelName = (res: Resource<DSLiteTunnelSpec>) => res.spec.tunnelName ?? res.metadata.name;

/** The AFTR's address: configured, or the chosen AAAA of its name. */
export function aftrAddress(res: Resource<DSLiteTunnelSpec>, view: ConfigView): RuntimeFact<{ name?: string; address: string }> {
  const s = res.spec;
  if (s.aftrIPv6) return { state: "present", value: { address: s.aftrIPv6 } };
  if (!s.aftrFQDN) return { state: "absent", reason: "no AFTR name yet" };
  const fact = view.runtime.aftr(s.aftrFQDN);
  if (fact.state === "unknown") return fact;
  if (fact.state === "absent") return { state: "absent", reason: fact.reason ?? `${s.aftrFQDN} did not resolve` };
  const list = fact.value;
  if (!list.length) return { state: "absent", reason: `${s.aftrFQDN} has no AAAA record` };
  const i = s.aftrAddressSelection === "ordinalModulo" ? s.aftrAddressOrdinal % list.length : s.aftrAddressOrdinal;
  if (i >= list.length) return { state: "absent", reason: `${s.aftrFQDN} has ${list.length} AAAA record(s); aftrAddressOrdinal is ${s.aftrAddressOrdinal}` };
  return { state: "present", value: { name: s.aftrFQDN, address: list[i]! } };
}

/** The tunnel's own IPv6 address. */
export function localAddress(res: Resource<DSLiteTunnelSpec>, view: ConfigView): RuntimeFact<string> {
  const s = res.spec;
  if (s.localAddressSource === "static" || s.localAddress) return s.localAddress ? { state: "present", value: s.localAddress } : { state: "absent", reason: "localAddress is not set yet" };
  if (s.localAddressSource === "delegatedAddress") {
    const ref = view.find<IPv6DelegatedAddressSpec>("IPv6DelegatedAddress", s.localDelegatedAddress ?? "");
    if (!ref) return { state: "absent", reason: "no localDelegatedAddress" };
    const d = delegatedLanAddress(ref, view);
    if (!d.address) return d.fact.state === "unknown" ? { state: "unknown", reason: d.reason ?? "delegated prefix unknown" } : { state: "absent", reason: d.reason ?? "no delegated prefix" };
    return { state: "present", value: s.localAddressSuffix ? withSuffix(d.address.address, s.localAddressSuffix) : d.address.address };
  }
  const link = view.runtime.link(view.ifname(s.interface));
  if (link.state !== "present") return link.state === "unknown" ? link : { state: "absent", reason: link.reason ?? "no such link" };
  const global = link.value.ipv6.find((a) => a.scope === "global" || (a.scope === undefined && !a.address.startsWith("fe80")));
  return global ? { state: "present", value: global.address } : { state: "absent", reason: `${link.value.ifname} has no global IPv6 address yet` };
}

/** The address's /64 with another interface identifier. */
function withSuffix(address: string, suffix: string): string {
  const low = (1n << 64n) - 1n;
  return formatIpv6((parseIpv6(address)! & ~low) | (parseIpv6(suffix)! & low));
}

export const dsliteTunnelKind = defineKind<DSLiteTunnelSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DSLiteTunnel",
  description: "A DS-Lite B4: an ip4ip6 tunnel to the AFTR (address, name, or DHCPv6 option 64) carrying IPv4, optionally as the default route.",
  class: "link",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.link", "linux.ipv4.address", "linux.ipv4.route"] },
  supportsWhen: true,
  spec: dsliteTunnelSpec,
  ifname: (res) => tunnelName(res),
  provides: {
    interface: "string",
    device: "string",
    tunnelName: "string",
    localIPv6: "string",
    innerLocalIPv4: "string",
    innerRemoteIPv4: "string",
    localInterface: "string",
    aftrName: "string",
    aftrIPv6: "string",
    mtu: "int",
    dryRun: "bool",
  },
  status(res, ctx) {
    const aftr = aftrAddress(res, ctx);
    const local = localAddress(res, ctx);
    const fields = {
      interface: ctx.ifname(res.spec.interface),
      device: tunnelName(res),
      tunnelName: tunnelName(res),
      localIPv6: local.state === "present" ? local.value : undefined,
      innerLocalIPv4: B4_ADDRESS,
      innerRemoteIPv4: res.spec.remoteAddress,
      localInterface: ctx.ifname(res.spec.interface),
      aftrName: res.spec.aftrFQDN,
      aftrIPv6: aftr.state === "present" ? aftr.value.address : undefined,
      mtu: res.spec.mtu,
      dryRun: false,
    };
    const unknown = [aftr, local].find((f) => f.state === "unknown");
    return unknown?.state === "unknown" ? { fields, unknown: unknown.reason } : { fields };
  },
  check(res, ctx) {
    const s = res.spec;
    const bad = ifnameProblem(tunnelName(res));
    if (bad) ctx.error(["tunnelName"], bad, "set tunnelName");
    const aftrWays = [s.aftrIPv6, s.aftrFQDN, s.aftrFrom].filter((x) => x !== undefined).length;
    if (aftrWays !== 1) ctx.error(["aftrIPv6"], "give exactly one of aftrIPv6, aftrFQDN and aftrFrom", "aftrFrom: { resource: DHCPv6PrefixDelegation/<name>, field: aftrName } takes it from DHCPv6 option 64");
    if (s.localAddressSource === "static" && s.localAddress === undefined && s.localAddressFrom === undefined) ctx.error(["localAddress"], "localAddressSource static needs localAddress (or localAddressFrom)");
    if (s.localAddressSource === "delegatedAddress" && !s.localDelegatedAddress) ctx.error(["localDelegatedAddress"], "localAddressSource delegatedAddress needs localDelegatedAddress");
    if (s.localAddressSuffix && s.localAddressSource !== "delegatedAddress") ctx.error(["localAddressSuffix"], "localAddressSuffix applies to localAddressSource: delegatedAddress");
    if (s.aftrDNSServers.length && !s.aftrFQDN && !s.aftrFrom) ctx.warn(["aftrDNSServers"], "aftrDNSServers is only used to resolve an AFTR name");
  },
  holdsExisting(res, ctx) {
    const unknown = [aftrAddress(res, ctx), localAddress(res, ctx)].find((f) => f.state === "unknown");
    return unknown?.state === "unknown" ? `DS-Lite endpoint unknown (${unknown.reason})` : undefined;
  },
  intents(res, ctx) {
    const s = res.spec;
    if (!s.enabled) return [];
    const aftr = aftrAddress(res, ctx);
    const local = localAddress(res, ctx);
    if (aftr.state !== "present" || local.state !== "present") return [];
    const ifname = tunnelName(res);
    const out: ArtifactIntent[] = [
      createdLinkIntent(res as Resource, {
        ifname,
        linkType: "ip6tnl",
        linkData: { mode: "ip4ip6", local: local.value, remote: aftr.value.address, dev: ctx.ifname(s.interface), encapLimit: s.encapsulationLimit === "none" ? "none" : Number(s.encapsulationLimit) },
        mtu: s.mtu,
      }),
      {
        kind: "linux.ipv4.address",
        name: artifactNames.ipv4Address(ifname, B4_ADDRESS, 29),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { ifname, address: B4_ADDRESS, prefixLength: 29 },
      },
    ];
    if (s.defaultRoute) {
      out.push({
        kind: "linux.ipv4.route",
        name: artifactNames.route(254, "0.0.0.0/0", s.routeMetric),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { table: 254, destination: "0.0.0.0/0", metric: s.routeMetric, type: "unicast", device: ifname },
      });
    }
    return out;
  },
});
