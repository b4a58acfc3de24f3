// The host runtime a config needs, derived from its kinds (the seeds' "derived host runtime"): the kernel
// modules its links and tables use, and drop-ins that keep systemd-networkd off routerd's links and
// systemd-resolved's stub listener off the addresses routerd-dns-resolver answers on. Pure: which of
// these the host wants at all (module support, networkd, resolved) is detected by the caller.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import type { ConfigView, Resource } from "./kind.js";
import { kindDefinition } from "./kinds/index.js";

export interface KernelModuleNeed {
  module: string;
  /** Loaded when it can be; nothing fails without it (wireguard under backend auto falls back to wireguard-go). */
  optional?: boolean;
}

const NFT: KernelModuleNeed[] = [{ module: "nf_tables" }];
const NFT_NAT: KernelModuleNeed[] = [...NFT, { module: "nf_nat" }];

/** Per kind: the modules one resource of it needs (names as /proc/modules shows them). */
const MODULES: Record<string, (res: Resource<any>) => KernelModuleNeed[]> = {
  VRF: () => [{ module: "vrf" }],
  VXLANTunnel: (r) => [{ module: "vxlan" }, ...(r.spec.tcpMSSClamp ? NFT : [])],
  DSLiteTunnel: () => [{ module: "ip6_tunnel" }],
  TunnelInterface: (r) => [{ module: r.spec.mode === "gre" ? "ip_gre" : "ipip" }, ...(r.spec.mode === "fou" || r.spec.mode === "gue" ? [{ module: "fou" }] : [])],
  // The kernel backend needs it; `auto` uses it where it loads and wireguard-go otherwise.
  WireGuardInterface: (r) => (r.spec.backend === "wireguard-go" ? [] : [{ module: "wireguard", optional: r.spec.backend !== "kernel" }]),
  PPPoESession: () => [{ module: "pppoe" }],
  NAT44Rule: () => NFT_NAT,
  PortForward: () => NFT_NAT,
  IngressService: () => NFT_NAT,
  EgressRoutePolicy: () => NFT,
  FirewallZone: () => NFT,
  FirewallPolicy: () => NFT,
  FirewallRule: () => NFT,
  IPAddressSet: () => NFT,
};

export function kernelModulesFor(res: Resource): KernelModuleNeed[] {
  return MODULES[res.kind]?.(res) ?? [];
}

export interface HostRuntime {
  /** The kernel loads modules (/proc/modules exists): module intents are derived. */
  modules: boolean;
  /**
   * Whether the kernel has a module on disk to load (modules.dep). An optional module it has is loaded (and
   * recorded) like a required one; without this, an optional module that is not loaded is left out.
   */
  loadable?: (module: string) => boolean;
  /** systemd-networkd is enabled or running on the host. */
  networkd: boolean;
  /** systemd-resolved is enabled or running on the host. */
  resolved: boolean;
}

export const NETWORKD_DIR = "/etc/systemd/network";
export const RESOLVED_DIR = "/etc/systemd/resolved.conf.d";

/** `00-`: networkd uses the first .network file that matches a link, so routerd's comes before the host's. */
export function networkdDropinPath(ifname: string): string {
  return `${NETWORKD_DIR}/00-routerd-${ifname}.network`;
}

export function resolvedDropinPath(resolver: string): string {
  return `${RESOLVED_DIR}/routerd-${resolver}.conf`;
}

export function networkdDropin(owner: string, ifname: string): string {
  return [`# Written by routerd for ${owner}: systemd-networkd leaves this link to routerd. Do not edit.`, "[Match]", `Name=${ifname}`, "", "[Link]", "Unmanaged=yes", ""].join("\n");
}

export function resolvedDropin(owner: string, clashes: readonly string[]): string {
  return [
    `# Written by routerd for ${owner}: routerd-dns-resolver answers on ${clashes.join(", ")}, where resolved's stub`,
    "# listener (127.0.0.53:53, 127.0.0.54:53) would be in the way. Do not edit.",
    "[Resolve]",
    "DNSStubListener=no",
    "",
  ].join("\n");
}

/** Port-53 listen addresses that resolved's stub listener would hold or block (the wildcard binds them too). */
const STUB_CLASHES = new Set(["0.0.0.0", "::", "127.0.0.53", "127.0.0.54"]);

export function stubListenerClashes(res: Resource): string[] {
  if (res.kind !== "DNSResolver") return [];
  const listen = (res.spec as { listen: { addresses: string[]; port: number }[] }).listen;
  return listen.filter((l) => l.port === 53).flatMap((l) => l.addresses.filter((a) => STUB_CLASHES.has(a)).map((a) => (a.includes(":") ? `[${a}]:53` : `${a}:53`)));
}

/** The link a resource brings to the host (its kind's ifname), unless it only observes it. */
function managedIfname(res: Resource, view: ConfigView): string | undefined {
  const def = kindDefinition(res.kind);
  if (!def?.ifname) return undefined;
  if (res.kind === "Interface" && (res.spec as { managed?: boolean }).managed === false) return undefined;
  return def.ifname(res, view);
}

/** Every runtime intent one resource implies on this host. */
export function derivedRuntimeIntents(res: Resource, view: ConfigView, host: HostRuntime): ArtifactIntent[] {
  const out: ArtifactIntent[] = [];
  if (host.modules) {
    for (const m of kernelModulesFor(res)) {
      const module = artifactNames.kernelModule(m.module);
      const optional = m.optional ?? false;
      // `optional` stays: a failed load of one the host has still holds nothing back (wireguard-go takes over).
      const loadable = optional && host.loadable?.(module) ? { loadable: true } : {};
      out.push({ kind: "linux.kernelModule", name: module, owner: res.owner, action: "ensure", applyWith: "modprobe", attributes: { module, optional, ...loadable } });
    }
  }
  const ifname = host.networkd ? managedIfname(res, view) : undefined;
  if (ifname) out.push(dropinIntent(res, networkdDropinPath(ifname), networkdDropin(res.owner, ifname), "systemd-networkd"));
  const clashes = host.resolved ? stubListenerClashes(res) : [];
  if (clashes.length) out.push(dropinIntent(res, resolvedDropinPath(res.metadata.name), resolvedDropin(res.owner, clashes), "systemd-resolved"));
  return out;
}

function dropinIntent(res: Resource, path: string, content: string, service: "systemd-networkd" | "systemd-resolved"): ArtifactIntent {
  return { kind: "systemd.dropin", name: artifactNames.dropin(path), owner: res.owner, action: "ensure", applyWith: "file", attributes: { path, content, service } };
}
