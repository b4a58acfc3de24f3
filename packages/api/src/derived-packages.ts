// The OS packages a config needs, derived from its kinds (Debian/Ubuntu names). `plan` shows them as intents
// of the resources that need them; `reconcile --install-packages` installs the missing ones; a missing
// required one makes its resource Pending instead of failing late.
import type { ArtifactIntent } from "@routerd/resource";
import type { Resource } from "./kind.js";
import { packageIntent } from "./kinds/package.js";

export interface DerivedPackage {
  name: string;
  /** Shown, installed with --install-packages, but nothing waits for it. */
  optional?: boolean;
}

const NFT: DerivedPackage[] = [{ name: "nftables" }];
const DNSMASQ: DerivedPackage[] = [{ name: "dnsmasq" }];
const NTP_PACKAGES: Record<string, string> = { chrony: "chrony", "systemd-timesyncd": "systemd-timesyncd", ntpd: "ntpsec" };

/** Per kind: the Debian packages one resource of it needs. */
const DERIVED: Record<string, (res: Resource<any>) => DerivedPackage[]> = {
  // `auto` runs on the kernel module where there is one: wireguard-go is then optional.
  WireGuardInterface: (r) => [{ name: "wireguard-tools" }, ...(r.spec.backend === "kernel" ? [] : [{ name: "wireguard-go", optional: r.spec.backend !== "wireguard-go" }])],
  NTPClient: (r) => [{ name: NTP_PACKAGES[String(r.spec.provider)] ?? "systemd-timesyncd" }],
  DHCPv4Server: () => DNSMASQ,
  DHCPv4Reservation: () => DNSMASQ,
  DHCPv6Server: () => DNSMASQ,
  DHCPv6Information: () => DNSMASQ,
  IPv6RouterAdvertisement: () => DNSMASQ,
  BGPRouter: () => [{ name: "gobgpd" }],
  FirewallZone: () => NFT,
  FirewallPolicy: () => NFT,
  FirewallRule: () => NFT,
  NAT44Rule: () => NFT,
  PortForward: () => NFT,
  IngressService: () => NFT,
  EgressRoutePolicy: () => NFT,
};

export const DERIVED_PACKAGE_OSES = ["debian", "ubuntu"] as const;

export function derivedPackages(res: Resource): DerivedPackage[] {
  return DERIVED[res.kind]?.(res) ?? [];
}

/** The package intents a resource implies: observed only, or ensured when routerd may install packages. */
export function derivedPackageIntents(res: Resource, install: boolean): ArtifactIntent[] {
  return derivedPackages(res).map((p) => packageIntent(res.owner, { os: DERIVED_PACKAGE_OSES, manager: "apt", name: p.name, optional: p.optional ?? false }, install ? "ensure" : "observe"));
}
