// The OS packages a config needs, derived from its kinds, named per OS family (Debian/Ubuntu with apt,
// Fedora/RHEL with dnf, FreeBSD with pkg). `plan` shows them as intents of the resources that need them
// (only the host's family is kept); `reconcile --install-packages` installs the missing ones; a missing
// required one makes its resource Pending instead of failing late.
import type { ArtifactIntent } from "@routerd/resource";
import type { Resource } from "./kind.js";
import { packageIntent, type PackageManager } from "./kinds/package.js";

export interface DerivedPackage {
  /** What routerd needs, by its Debian name (the key of PACKAGE_NAMES). */
  name: string;
  /** Shown, installed with --install-packages, but nothing waits for it. */
  optional?: boolean;
}

export interface PackageFamily {
  family: "debian" | "fedora" | "freebsd";
  /** os-release IDs (and ID_LIKE values) of the family. */
  os: readonly string[];
  manager: PackageManager;
}

export const PACKAGE_FAMILIES: readonly PackageFamily[] = [
  { family: "debian", os: ["debian", "ubuntu"], manager: "apt" },
  { family: "fedora", os: ["fedora", "rhel", "rocky", "almalinux"], manager: "dnf" },
  { family: "freebsd", os: ["freebsd"], manager: "pkg" },
];

type Names = Readonly<Record<PackageFamily["family"], string | null>>;

/**
 * What each needed program is called per family. null: nothing to install there (in the base system, or
 * not what that OS uses), so nothing is derived or waited for. The Fedora and FreeBSD names are the
 * distributions' package names as documented; dnf and pkg never run on the test machines (docs/packages.md).
 */
export const PACKAGE_NAMES: Readonly<Record<string, Names>> = {
  nftables: { debian: "nftables", fedora: "nftables", freebsd: null }, // FreeBSD filters with pf (base)
  dnsmasq: { debian: "dnsmasq", fedora: "dnsmasq", freebsd: "dnsmasq" },
  "wireguard-tools": { debian: "wireguard-tools", fedora: "wireguard-tools", freebsd: "wireguard-tools" },
  // Fedora's kernels have the module; Fedora does not package wireguard-go.
  "wireguard-go": { debian: "wireguard-go", fedora: null, freebsd: "wireguard-go" },
  chrony: { debian: "chrony", fedora: "chrony", freebsd: "chrony" },
  // Fedora ships timesyncd with its systemd packages; FreeBSD has no systemd.
  "systemd-timesyncd": { debian: "systemd-timesyncd", fedora: null, freebsd: null },
  // FreeBSD's ntpd is in the base system.
  ntpsec: { debian: "ntpsec", fedora: "ntpsec", freebsd: null },
  gobgpd: { debian: "gobgpd", fedora: "gobgp", freebsd: "gobgp" },
};

const NFT: DerivedPackage[] = [{ name: "nftables" }];
const DNSMASQ: DerivedPackage[] = [{ name: "dnsmasq" }];
const NTP_PACKAGES: Record<string, string> = { chrony: "chrony", "systemd-timesyncd": "systemd-timesyncd", ntpd: "ntpsec" };

/** Per kind: the packages one resource of it needs (keys of PACKAGE_NAMES). */
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

export const DERIVED_PACKAGE_OSES = PACKAGE_FAMILIES.flatMap((f) => f.os);

export function derivedPackages(res: Resource): DerivedPackage[] {
  return DERIVED[res.kind]?.(res) ?? [];
}

/** A needed package under each family that has it: one intent per family (the core keeps the host's). */
export function derivedPackageIntents(res: Resource, install: boolean): ArtifactIntent[] {
  return derivedPackages(res).flatMap((p) =>
    PACKAGE_FAMILIES.flatMap((f) => {
      const name = PACKAGE_NAMES[p.name]?.[f.family];
      // An optional derived package (wireguard-go beside a kernel that may have the module) is never installed unasked.
      const optional = p.optional ?? false;
      return name ? [packageIntent(res.owner, { os: f.os, manager: f.manager, name, optional }, install && !optional ? "ensure" : "observe")] : [];
    }),
  );
}
