// The firewall holes routerd's own services need, derived from the config (data, one entry per kind).
import { onWan, type ConfigView, type DHCPv4ClientSpec, type DHCPv4ServerSpec, type DHCPv6InformationSpec, type DHCPv6PrefixDelegationSpec, type DHCPv6ServerSpec, type DNSResolverSpec, type IPv4StaticAddressSpec } from "@routerd/api";
import type { ServiceHole } from "@routerd/render";

type HoleSource = (view: ConfigView) => ServiceHole[];

const HOLE_SOURCES: HoleSource[] = [
  // Server replies to a client are broadcasts conntrack cannot relate to the request.
  (v) => v.all<DHCPv4ClientSpec>("DHCPv4Client").map((r) => ({ owner: `DHCPv4Client/${r.metadata.name}`, ifnames: [v.ifname(r.spec.interface)], protocol: "udp", port: 68 })),
  (v) => v.all<DHCPv4ServerSpec>("DHCPv4Server").map((r) => ({ owner: `DHCPv4Server/${r.metadata.name}`, ifnames: [v.ifname(r.spec.interface)], protocol: "udp", port: 67 })),
  // Replies come from the server's link-local to ours: conntrack cannot relate them to a multicast Solicit.
  (v) =>
    v.all<DHCPv6PrefixDelegationSpec>("DHCPv6PrefixDelegation").map((r) => ({ owner: `DHCPv6PrefixDelegation/${r.metadata.name}`, ifnames: [v.ifname(r.spec.interface)], protocol: "udp", port: 546 })),
  (v) => v.all<DHCPv6ServerSpec>("DHCPv6Server").map((r) => ({ owner: `DHCPv6Server/${r.metadata.name}`, ifnames: [v.ifname(r.spec.interface)], protocol: "udp", port: 547 })),
  // Only on a LAN: on the WAN (the original's meaning) it just publishes what the delegation's server said.
  (v) =>
    v
      .all<DHCPv6InformationSpec>("DHCPv6Information")
      .filter((r) => !onWan(v, r.spec))
      .map((r) => ({ owner: `DHCPv6Information/${r.metadata.name}`, ifnames: [v.ifname(r.spec.interface)], protocol: "udp", port: 547 })),
  dnsResolverHoles,
];

const LOOPBACK = /^(127\.|::1$)/;

/**
 * DNS on each DNSResolver listener, UDP and TCP: on the interface whose static address it listens on, or to
 * the address itself when no interface is known for it. Loopback needs none (lo is always accepted).
 */
function dnsResolverHoles(v: ConfigView): ServiceHole[] {
  const byAddress = new Map(v.all<IPv4StaticAddressSpec>("IPv4StaticAddress").map((a) => [a.spec.address.split("/")[0]!, v.ifname(a.spec.interface)]));
  return v.all<DNSResolverSpec>("DNSResolver").flatMap((r) =>
    r.spec.listen.flatMap((l) => {
      const addresses = l.addresses.filter((a) => !LOOPBACK.test(a));
      if (addresses.length === 0) return [];
      const ifnames = [...new Set(addresses.flatMap((a) => (byAddress.has(a) ? [byAddress.get(a)!] : [])))].sort();
      const daddrs = addresses.filter((a) => !byAddress.has(a));
      const owner = `DNSResolver/${r.metadata.name}`;
      return (["udp", "tcp"] as const).flatMap((protocol) => [
        ...(ifnames.length ? [{ owner, ifnames, protocol, port: l.port }] : []),
        ...(daddrs.length ? [{ owner, daddrs, protocol, port: l.port }] : []),
      ]);
    }),
  );
}

export function serviceHoles(view: ConfigView): ServiceHole[] {
  return HOLE_SOURCES.flatMap((s) => s(view));
}
