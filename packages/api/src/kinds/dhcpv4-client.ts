import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats, parseIpv4Prefix } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import type { Dhcpv4Lease } from "../runtime.js";
import { t, type Infer } from "../schema.js";

export const DHCPV4_CLIENT_DAEMON = "dhcpv4-client";
export const RESOLV_CONF = "/etc/resolv.conf";

export const dhcpv4ClientSpec = t.object({
  interface: t.interfaceRef().describe("the WAN Interface to run the client on"),
  hostname: t.optional(formats.hostname().describe("option 12")),
  clientID: t.optional(t.string({ pattern: /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})+$/, patternHint: "hex bytes like 01:02:00:00:00:00:01" }).describe("option 61 (default: hardware type + MAC)")),
  classID: t.optional(t.string({ minLength: 1, maxLength: 255 }).describe("option 60, vendor class")),
  requestedAddress: t.optional(formats.ipv4().describe("option 50, asked for in DISCOVER")),
  useRoutes: t.withDefault(t.bool().describe("install the default route (option 3) or classless routes (option 121)"), true),
  useDNS: t.withDefault(t.bool().describe(`put the lease's DNS servers in a routerd block of ${RESOLV_CONF}`), true),
  routeMetric: t.withDefault(t.int({ min: 0, max: 4294967295 }), 100),
  releaseOnStop: t.withDefault(t.bool().describe("send DHCPRELEASE when the client stops"), true),
});

export type DHCPv4ClientSpec = Infer<typeof dhcpv4ClientSpec>;

/** The lease's routes: option 121 wins over option 3 when the server sent both (RFC 3442). */
export function leaseRoutes(lease: Dhcpv4Lease): { destination: string; gateway: string }[] {
  if (lease.classlessRoutes.length) return lease.classlessRoutes;
  return lease.routers[0] ? [{ destination: "0.0.0.0/0", gateway: lease.routers[0] }] : [];
}

/** The DHCPv4Client running on an Interface, if any (for lease-derived gateways elsewhere). */
export function dhcpClientOn(view: ConfigView, interfaceName: string) {
  return view.all<DHCPv4ClientSpec>("DHCPv4Client").find((c) => c.spec.interface === interfaceName);
}

export const dhcpv4ClientKind = defineKind<DHCPv4ClientSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv4Client",
  description: "Gets the interface's address, routes and DNS servers by DHCP (routerd-dhcpv4-client); they follow the lease.",
  class: "wan-acquisition",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["routerd.daemon", "linux.ipv4.address", "linux.ipv4.route", "file"] },
  supportsWhen: true,
  spec: dhcpv4ClientSpec,
  status(res, ctx) {
    const device = ctx.ifname(res.spec.interface);
    const fact = ctx.runtime.dhcpv4Lease(res.metadata.name);
    const base = { interface: res.spec.interface, device };
    if (fact.state === "unknown") return { fields: base, unknown: `DHCPv4 lease unknown (${fact.reason})` };
    if (fact.state === "absent") return { ...(fact.phase ? { phase: fact.phase } : {}), fields: base };
    const l = fact.value;
    const gateway = leaseRoutes(l).find((r) => r.destination === "0.0.0.0/0")?.gateway ?? l.routers[0];
    return {
      ...(fact.phase ? { phase: fact.phase } : {}),
      fields: {
        ...base,
        currentAddress: l.address,
        gateway,
        defaultGateway: gateway,
        dnsServers: l.dnsServers,
        ntpServers: l.ntpServers ?? [],
        domain: l.domain,
        leaseTime: l.leaseTime,
        renewAt: l.renewAt,
        rebindAt: l.rebindAt,
        expiresAt: l.expiresAt,
      },
    };
  },
  provides: { interface: "string", device: "string", currentAddress: "string", gateway: "string", defaultGateway: "string", dnsServers: "stringList", ntpServers: "stringList", domain: "string", leaseTime: "int", renewAt: "timestamp", rebindAt: "timestamp", expiresAt: "timestamp" },
  check(res, ctx) {
    for (const other of ctx.all<DHCPv4ClientSpec>("DHCPv4Client")) {
      if (other.index >= res.index) continue;
      if (other.spec.interface === res.spec.interface) ctx.error(["interface"], `Interface ${res.spec.interface} already runs DHCPv4Client/${other.metadata.name}`);
      // Both leases bring a default route into table main; one destination and metric is one route.
      else if (res.spec.useRoutes && other.spec.useRoutes && other.spec.routeMetric === res.spec.routeMetric) {
        ctx.error(["routeMetric"], `DHCPv4Client/${other.metadata.name} installs its routes with metric ${res.spec.routeMetric} too`, "give each uplink its own routeMetric (the lowest carries the default route)");
      }
    }
    if (ctx.all<{ interface: string }>("IPv4StaticAddress").some((a) => a.spec.interface === res.spec.interface)) {
      ctx.warn(["interface"], "the interface also has a static IPv4 address; both will be configured");
    }
  },
  holdsExisting(res, ctx) {
    const lease = ctx.runtime.dhcpv4Lease(res.metadata.name);
    return lease.state === "unknown" ? `DHCPv4 lease unknown (${lease.reason})` : undefined;
  },
  intents(res, ctx) {
    const ifname = ctx.ifname(res.spec.interface);
    const out: ArtifactIntent[] = [
      {
        kind: "routerd.daemon",
        name: artifactNames.daemon(DHCPV4_CLIENT_DAEMON, res.metadata.name),
        owner: res.owner,
        action: "ensure",
        applyWith: "supervisor",
        attributes: { daemon: DHCPV4_CLIENT_DAEMON, instance: res.metadata.name },
      },
    ];
    const fact = ctx.runtime.dhcpv4Lease(res.metadata.name);
    if (fact.state !== "present") return out;
    const lease = fact.value;
    out.push({
      kind: "linux.ipv4.address",
      name: artifactNames.ipv4Address(ifname, lease.address, lease.prefixLength),
      owner: res.owner,
      action: "ensure",
      applyWith: "ip-batch",
      attributes: { ifname, address: lease.address, prefixLength: lease.prefixLength },
    });
    if (res.spec.useRoutes) {
      for (const r of leaseRoutes(lease)) {
        const destination = parseIpv4Prefix(r.destination) ? r.destination : `${r.destination}/32`;
        out.push({
          kind: "linux.ipv4.route",
          name: artifactNames.route(254, destination, res.spec.routeMetric),
          owner: res.owner,
          action: "ensure",
          applyWith: "ip-batch",
          attributes: { table: 254, destination, metric: res.spec.routeMetric, type: "unicast", device: ifname, ...(r.gateway !== "0.0.0.0" ? { gateway: r.gateway } : {}) },
        });
      }
    }
    if (res.spec.useDNS && lease.dnsServers.length) {
      const block = `dhcpv4-${res.metadata.name}`;
      const content = [...lease.dnsServers.map((s) => `nameserver ${s}`), ...(lease.domain ? [`search ${lease.domain}`] : [])].join("\n") + "\n";
      out.push({
        kind: "file",
        name: artifactNames.fileBlock(RESOLV_CONF, block),
        owner: res.owner,
        action: "ensure",
        applyWith: "file-block",
        attributes: { path: RESOLV_CONF, block, content },
      });
    }
    return out;
  },
});
