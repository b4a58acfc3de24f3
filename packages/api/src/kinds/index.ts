// The kind registry: adding a kind means adding its module here. Order is documentation order.
import { registerInterfaceKind } from "../interface-kinds.js";
import type { KindDefinition } from "../kind.js";
import { bfdKind } from "./bfd.js";
import { bgpPeerKind } from "./bgp-peer.js";
import { bgpRouterKind } from "./bgp-router.js";
import { clusterNetworkRouteKind } from "./cluster-network-route.js";
import { dhcpv4ClientKind } from "./dhcpv4-client.js";
import { dhcpv4ReservationKind } from "./dhcpv4-reservation.js";
import { dhcpv4ServerKind } from "./dhcpv4-server.js";
import { dhcpv6InformationKind } from "./dhcpv6-information.js";
import { dhcpv6PrefixDelegationKind } from "./dhcpv6-prefix-delegation.js";
import { dhcpv6ServerKind } from "./dhcpv6-server.js";
import { dnsForwarderKind } from "./dns-forwarder.js";
import { dnsResolverKind } from "./dns-resolver.js";
import { dnsUpstreamKind } from "./dns-upstream.js";
import { dnsZoneKind } from "./dns-zone.js";
import { egressRoutePolicyKind } from "./egress-route-policy.js";
import { firewallPolicyKind } from "./firewall-policy.js";
import { firewallRuleKind } from "./firewall-rule.js";
import { firewallZoneKind } from "./firewall-zone.js";
import { healthCheckKind } from "./health-check.js";
import { hostnameKind } from "./hostname.js";
import { interfaceKind } from "./interface.js";
import { ingressServiceKind } from "./ingress-service.js";
import { ipAddressSetKind } from "./ip-address-set.js";
import { ipv4RouteKind } from "./ipv4-route.js";
import { ipv4StaticAddressKind } from "./ipv4-static-address.js";
import { ipv6DelegatedAddressKind } from "./ipv6-delegated-address.js";
import { ipv6RouterAdvertisementKind } from "./ipv6-router-advertisement.js";
import { nat44RuleKind } from "./nat44-rule.js";
import { ntpClientKind } from "./ntp-client.js";
import { observabilityPipelineKind } from "./observability-pipeline.js";
import { packageKind } from "./package.js";
import { portForwardKind } from "./port-forward.js";
import { pppoeSessionKind } from "./pppoe-session.js";
import { dsliteTunnelKind } from "./dslite-tunnel.js";
import { tunnelInterfaceKind } from "./tunnel-interface.js";
import { vrfKind } from "./vrf.js";
import { vxlanTunnelKind } from "./vxlan-tunnel.js";
import { routerdClusterKind } from "./routerd-cluster.js";
import { sysctlProfileKind } from "./sysctl-profile.js";
import { sysctlKind } from "./sysctl.js";
import { tailscaleNodeKind } from "./tailscale-node.js";
import { wireGuardInterfaceKind } from "./wireguard-interface.js";
import { wireGuardPeerKind } from "./wireguard-peer.js";
import { virtualAddressKind } from "./virtual-address.js";

// Each definition is typed with its own spec; the registry erases that for generic handling.
export const KINDS: readonly KindDefinition<any>[] = [
  interfaceKind,
  ipv4StaticAddressKind,
  ipv4RouteKind,
  clusterNetworkRouteKind,
  virtualAddressKind,
  nat44RuleKind,
  egressRoutePolicyKind,
  healthCheckKind,
  ipAddressSetKind,
  hostnameKind,
  firewallZoneKind,
  firewallPolicyKind,
  firewallRuleKind,
  portForwardKind,
  ingressServiceKind,
  sysctlKind,
  sysctlProfileKind,
  routerdClusterKind,
  dhcpv4ClientKind,
  pppoeSessionKind,
  dsliteTunnelKind,
  tunnelInterfaceKind,
  vrfKind,
  vxlanTunnelKind,
  dhcpv4ServerKind,
  dhcpv4ReservationKind,
  dhcpv6PrefixDelegationKind,
  ipv6DelegatedAddressKind,
  ipv6RouterAdvertisementKind,
  dhcpv6ServerKind,
  dhcpv6InformationKind,
  bgpRouterKind,
  bgpPeerKind,
  bfdKind,
  dnsResolverKind,
  dnsZoneKind,
  dnsForwarderKind,
  dnsUpstreamKind,
  wireGuardInterfaceKind,
  wireGuardPeerKind,
  ntpClientKind,
  packageKind,
  tailscaleNodeKind,
  observabilityPipelineKind,
];

const BY_KIND = new Map(KINDS.map((k) => [k.kind, k]));
for (const k of KINDS) if (k.ifname) registerInterfaceKind(k.kind, k.ifname);

export function kindDefinition(kind: string): KindDefinition<any> | undefined {
  return BY_KIND.get(kind);
}
