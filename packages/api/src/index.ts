export {
  API_GROUPS,
  defineKind,
  type ApiVersion,
  type CheckContext,
  type ConfigView,
  type KindDefinition,
  type PublishedStatus,
  type Resource,
  type RouterConfig,
  type SourcePosition,
} from "./kind.js";
export { PHASE_FIELD, phaseMatches, providedFields, providedType, type ProvidedType, type Provides } from "./provides.js";
export { fromSource, fromSources, VALUE_FORMATS, type SourceUse, type StatusSource, type ValueFormatName } from "./status-source.js";
export { makeStatusView, type Resolution, type StatusView, type StatusViewInput } from "./status-view.js";
export { INTERFACE_KINDS } from "./interface-kinds.js";
export { artifactIfname, protectedIfnames } from "./protected.js";
export type { ReconcileSpec, ResourceMetadata } from "./router-spec.js";
export { KINDS, kindDefinition } from "./kinds/index.js";
export { loadConfig, formatPath, ROUTER_API_VERSION, type ConfigIssue, type LoadResult } from "./load.js";
export { makeConfigView } from "./config-view.js";
export { routerJsonSchema, SCHEMA_ID } from "./json-schema.js";
export { effectiveView, type EffectiveView } from "./effective-view.js";
export { evaluateWhen, parseStateKey, whenReads, whenReferences, whenSchema, type FieldFact, type StateMatch, type WhenLookup, type WhenPredicate, type WhenState } from "./when.js";
export { NFT_TABLES, nftSetName, nftTableIntent, type NftTableRole } from "./tables.js";
export { durationMs, formats, fwmarkValue, intToIpv4, ipv4InPrefix, ipv4Network, ipv4ToInt, parseIpv4Prefix, prefixesOverlap, type Ipv4Prefix } from "./formats.js";
export { t, nearest, type Infer, type Path } from "./schema.js";
export type { InterfaceSpec } from "./kinds/interface.js";
export type { IPv4StaticAddressSpec } from "./kinds/ipv4-static-address.js";
export { tableId, type IPv4RouteSpec } from "./kinds/ipv4-route.js";
export { natAction, type NAT44RuleSpec, type Nat44Action } from "./kinds/nat44-rule.js";
export { hairpinOf, type PortForwardSpec } from "./kinds/port-forward.js";
export {
  hairpinInterfaces,
  hairpinMode,
  ingressBackends,
  ingressProbeName,
  type HairpinMode,
  activeIngressTargets,
  ingressServiceStatus,
  INGRESS_SERVICE_PROVIDES,
  weightedShare,
  type IngressBackend,
  type IngressTarget,
  type IngressServiceSpec,
} from "./kinds/ingress-service.js";
export type { FirewallZoneSpec } from "./kinds/firewall-zone.js";
export { usesRoleMatrix, type FirewallPolicySpec } from "./kinds/firewall-policy.js";
export type { FirewallRuleSpec } from "./kinds/firewall-rule.js";
export type { IPAddressSetSpec } from "./kinds/ip-address-set.js";
export { candidateDevice, liveCandidates, type EgressCandidate, type EgressRoutePolicySpec, type NumberedCandidate } from "./kinds/egress-route-policy.js";
export {
  EGRESS_SLOTS,
  allocateEgressNumbers,
  allocationKey,
  needsEgressNumbers,
  withEgressNumbers,
  type AllocationResult,
  type EgressAllocation,
  type EgressNumbers,
  type TakenNumbers,
} from "./egress-numbers.js";
export { HEALTHCHECK_DAEMON, probePort, probeTarget, probeType, type HealthCheckSpec } from "./kinds/health-check.js";
export type { RouterdClusterSpec } from "./kinds/routerd-cluster.js";
export { SYSCTL_PERSIST_FILE, type SysctlSpec } from "./kinds/sysctl.js";
export { SYSCTL_PROFILES, profileValues, type SysctlProfileSpec } from "./kinds/sysctl-profile.js";
export type { HostnameSpec } from "./kinds/hostname.js";
export { UNKNOWN_RUNTIME, runtimeFrom, type DelegatedPrefix, type Dhcpv4Lease, type LinkFacts, type BgpDaemonFacts, type PppoeSession, type RuntimeFact, type RuntimeView, type WireGuardFacts, type WireGuardPeerFacts } from "./runtime.js";
export { aftrAddress, B4_ADDRESS, type DSLiteTunnelSpec } from "./kinds/dslite-tunnel.js";
export type { TunnelInterfaceSpec } from "./kinds/tunnel-interface.js";
export type { VRFSpec } from "./kinds/vrf.js";
export { vxlanClampMss, type VXLANTunnelSpec } from "./kinds/vxlan-tunnel.js";
export { PPPOE_CLIENT_DAEMON, PPPOE_ROUTE_METRIC, lcpEcho, pppoeClientConfig, sessionFact, type PPPoESessionSpec } from "./kinds/pppoe-session.js";
export { DNSMASQ, dnsmasqIntents, staticAddressOf } from "./lan-services.js";
export { DHCPV4_CLIENT_DAEMON, RESOLV_CONF, dhcpClientOn, leaseRoutes, type DHCPv4ClientSpec } from "./kinds/dhcpv4-client.js";
export { dnsOption, poolOf, routerOption, type DHCPv4ServerSpec } from "./kinds/dhcpv4-server.js";
export { reservationServer, type DHCPv4ReservationSpec } from "./kinds/dhcpv4-reservation.js";
export { dnsmasqOption, type DhcpOption } from "./kinds/dhcp-options.js";
export {
  DELEGATED_UNREACHABLE_METRIC,
  DHCPV6_CLIENT_DAEMON,
  delegationFact,
  requestedLength,
  type DHCPv6PrefixDelegationSpec,
} from "./kinds/dhcpv6-prefix-delegation.js";
export { INFINITE_LIFETIME, delegatedLanAddress, type DelegatedLanAddress, type IPv6DelegatedAddressSpec } from "./kinds/ipv6-delegated-address.js";
export { ipv6LanServices, type IPv6RouterAdvertisementSpec, type Ipv6LanMode, type Ipv6LanServices } from "./kinds/ipv6-router-advertisement.js";
export { dhcpv6DnsServers, poolLeaseTime, type DHCPv6ServerSpec } from "./kinds/dhcpv6-server.js";
export { delegatedInformation, informationSource, onWan, type DHCPv6InformationSpec } from "./kinds/dhcpv6-information.js";
export { compressedZeroRun, deriveLanAddress, formatIpv6, parseIpv6, parseIpv6Prefix, type DerivedAddress, type Ipv6Prefix } from "./kinds/ipv6-prefix.js";
export {
  BGP_DAEMON,
  BGP_DEFAULT_METRIC,
  BGP_ROUTE_PROTOCOL,
  BGP_ROUTE_PROTOCOL_NAME,
  bgpFibTarget,
  bgpRouterSpec,
  type BGPRouterSpec,
} from "./kinds/bgp-router.js";
export { bgpPeerSpec, type BGPPeerSpec } from "./kinds/bgp-peer.js";
export { BFD_PROFILES, bfdSpec, bfdTimers, type BFDSpec, type BfdTimers } from "./kinds/bfd.js";
export { clusterCidrs, type ClusterNetworkRouteSpec } from "./kinds/cluster-network-route.js";
export { VRRP_DAEMON, trackedCheck, virtualAddress, vrrpVersion, type VirtualAddressSpec, type VirtualAddressTrack } from "./kinds/virtual-address.js";
export {
  BGP_TIMER_PROFILES,
  checkIpPrefix,
  type BgpCommunities,
  type BgpExportPolicy,
  type BgpImportPolicy,
  type BgpTimers,
  type PasswordSource,
} from "./kinds/bgp-policy.js";
export { DNS_RESOLVER_DAEMON, fqdn, resolversOfUpstream, resolversOfZone } from "./kinds/dns-common.js";
export { DEFAULT_DNS_SOURCES, type DNSResolverSpec } from "./kinds/dns-resolver.js";
export { zoneRecordName, type DNSZoneSpec } from "./kinds/dns-zone.js";
export type { DNSForwarderSpec } from "./kinds/dns-forwarder.js";
export { DNS_DEFAULT_PORTS, upstreamAddresses, upstreamUrl, type DNSUpstreamSpec } from "./kinds/dns-upstream.js";
export { WIREGUARD_BACKENDS, peersOf, wireGuardFwmark, wireGuardIfname, type WireGuardInterfaceSpec } from "./kinds/wireguard-interface.js";
export type { WireGuardPeerSpec } from "./kinds/wireguard-peer.js";
export { NTP_PROVIDERS, NTP_PROVIDER_FILES, ntpBlock, ntpServersInUse, ntpStatus, type NTPClientSpec, type NtpProvider } from "./kinds/ntp-client.js";
export { DEFAULT_MANAGER, PACKAGE_MANAGERS, PACKAGE_OSES, packageIntent, type PackageManager, type PackageSpec } from "./kinds/package.js";
export { DERIVED_PACKAGE_OSES, PACKAGE_FAMILIES, PACKAGE_NAMES, derivedPackageIntents, derivedPackages, type DerivedPackage, type PackageFamily } from "./derived-packages.js";
export {
  TAILSCALE,
  TAILSCALE_DAEMON,
  tailscaleIfname,
  tailscaleSocket,
  tailscaleStateDir,
  tailscaleUnitName,
  tailscaleUpArgs,
  type TailscaleNodeSpec,
} from "./kinds/tailscale-node.js";
export {
  NETWORKD_DIR,
  RESOLVED_DIR,
  derivedRuntimeIntents,
  kernelModulesFor,
  networkdDropin,
  networkdDropinPath,
  resolvedDropin,
  resolvedDropinPath,
  stubListenerClashes,
  type HostRuntime,
  type KernelModuleNeed,
} from "./derived-runtime.js";
export { DEFAULT_SYSLOG_SOCKET, telemetrySettings, type ObservabilityPipelineSpec, type TelemetrySettings } from "./kinds/observability-pipeline.js";
