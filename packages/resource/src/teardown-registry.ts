// Per artifact kind: may orphan cleanup remove it, under which guard, in which order, and how.
import type { ArtifactKind } from "./artifact.js";
import { ROUTERD_ROUTE_PROTOCOLS, isRouterdDropin, parseRouteProtocolName } from "./artifact-names.js";
import type { LedgerEntry } from "./ledger.js";

export type TeardownPolicy =
  /** Generic orphan cleanup may remove it when the guard passes. */
  | "remove"
  /** Only the owning resource's own teardown removes it (TeardownLifecycle: resource). */
  | "ownerTeardown"
  /** Lives inside another artifact (an nft set in its table): it goes when the parent is re-rendered. */
  | "withParent"
  /** Never deleted: reconciled to desired values or left alone. */
  | "never";

export interface TeardownSpec {
  kind: ArtifactKind;
  policy: TeardownPolicy;
  /** Lower first: services and daemons stop before their tables, rules before route tables. */
  order: number;
  /** What the executor does, named for plans and docs. */
  operation: string;
  /** Returns why this entry is NOT eligible, or undefined when it is. Ledger ownership is checked before. */
  guard: (entry: Pick<LedgerEntry, "kind" | "name" | "attributes">) => string | undefined;
  /** Is a name inside routerd's reserved namespace (a look-alike when it is not in the ledger)? */
  inRouterdNamespace?: (name: string) => boolean;
  why: string;
}

export const FWMARK_MIN = 0x100;
export const FWMARK_MAX = 0x1ff;

export function fwmarkOf(ruleName: string): number | undefined {
  const m = /(?:^|,)mark=(0x[0-9a-f]+|\d+)(?:,|$)/i.exec(ruleName);
  return m ? Number(m[1]) : undefined;
}

export function inFwmarkRange(mark: number | undefined): boolean {
  return mark !== undefined && mark >= FWMARK_MIN && mark <= FWMARK_MAX;
}

const always = () => undefined;
const isRouterdTable = (name: string) => /^(ip|ip6|inet|arp|bridge|netdev)\/routerd_[a-z0-9_]+$/.test(name);
export const isRouterdUnit = (name: string) => /^routerd-[A-Za-z0-9@_.:-]+\.service$/.test(name);
/** A generated FreeBSD rc.d script: routerd_<daemon>_<instance> or routerd_tailscale_<name> (never a shipped one: ledger-owned only). */
export const isRouterdRcScript = (name: string) => /^routerd_[A-Za-z0-9_]+$/.test(name);
const RESERVED_TABLES = new Set(["0", "253", "254", "255", "local", "main", "default", "unspec"]);

const SPECS: readonly TeardownSpec[] = [
  {
    kind: "routerd.daemon",
    policy: "remove",
    order: 0,
    operation: "stop the daemon instance, remove its socket and state directory",
    guard: always,
    why: "a daemon instance routerd started for a resource; its socket and state live under routerd's own dirs",
  },
  {
    kind: "systemd.service",
    policy: "remove",
    order: 1,
    operation: "systemctl disable --now, remove the unit file, daemon-reload",
    guard: (e) => (isRouterdUnit(e.name) ? undefined : `unit ${e.name} is not routerd-*.service`),
    inRouterdNamespace: isRouterdUnit,
    why: "only routerd-*.service units that routerd wrote",
  },
  {
    kind: "freebsd.rcScript",
    policy: "remove",
    order: 1,
    operation: "service <name> onestop, remove the script and its /etc/rc.conf.d/<name> file",
    guard: (e) => (isRouterdRcScript(e.name) ? undefined : `rc.d script ${e.name} is not routerd_*`),
    inRouterdNamespace: isRouterdRcScript,
    why: "only routerd_* rc.d scripts (and their rc.conf.d files) that routerd wrote",
  },
  {
    kind: "nft.table",
    policy: "remove",
    order: 5,
    operation: "nft delete table <family> <name>",
    guard: (e) => (isRouterdTable(e.name) ? undefined : `table ${e.name} is not named routerd_*`),
    inRouterdNamespace: isRouterdTable,
    why: "only ledger-owned tables named routerd_*",
  },
  {
    kind: "nft.set",
    policy: "withParent",
    order: 6,
    operation: "dropped when its table is re-rendered",
    guard: always,
    why: "a named set exists only inside a routerd table",
  },
  {
    kind: "linux.ipv4.fwmarkRule",
    policy: "remove",
    order: 10,
    operation: "ip rule del",
    guard: (e) => (inFwmarkRange(fwmarkOf(e.name)) ? undefined : `fwmark of ${e.name} is outside 0x100-0x1ff`),
    inRouterdNamespace: (name) => inFwmarkRange(fwmarkOf(name)),
    why: "only rules whose fwmark is in routerd's range 0x100-0x1ff",
  },
  {
    kind: "linux.ipv4.route",
    policy: "remove",
    order: 20,
    operation: "ip route del",
    guard: always,
    why: "a route has an exact identity (table, destination, metric); only ledger-created ones are removed",
  },
  {
    kind: "linux.ipv6.route",
    policy: "remove",
    order: 20,
    operation: "ip -6 route del",
    guard: always,
    why: "as for IPv4 routes",
  },
  {
    kind: "linux.route.protocol",
    policy: "remove",
    order: 21,
    operation: "ip route flush table <table> proto <protocol> (IPv4 and IPv6)",
    guard: (e) => {
      const p = parseRouteProtocolName(e.name);
      if (p === undefined) return `${e.name} is not proto=N,table=N`;
      return ROUTERD_ROUTE_PROTOCOLS[p.protocol] !== undefined ? undefined : `protocol ${p.protocol} is not one of routerd's`;
    },
    inRouterdNamespace: (name) => ROUTERD_ROUTE_PROTOCOLS[parseRouteProtocolName(name)?.protocol ?? -1] !== undefined,
    why: "the routes a routerd daemon installed under routerd's own protocol number; routes of any other protocol in the table stay",
  },
  {
    kind: "linux.ipv4.routeTable",
    policy: "remove",
    order: 30,
    operation: "ip route flush table <id>",
    guard: (e) => (RESERVED_TABLES.has(e.name) ? `table ${e.name} is a kernel table` : undefined),
    why: "only ledger-owned, non-kernel tables, after the rules that point at them are gone",
  },
  {
    kind: "linux.ipip6.tunnel",
    policy: "remove",
    order: 40,
    operation: "ip -6 tunnel del <name>",
    guard: always,
    why: "ledger-owned tunnels only",
  },
  {
    kind: "wireguard.peer",
    policy: "remove",
    order: 15,
    operation: "wg set <ifname> peer <publicKey> remove (the other peers' sessions are untouched)",
    guard: always,
    why: "a peer routerd configured on a WireGuard device it created (ledger-owned)",
  },
  {
    kind: "wireguard.device",
    policy: "remove",
    order: 45,
    operation: "ip link del <ifname> (a wireguard-go backend exits with its tun device)",
    guard: always,
    why: "only WireGuard devices routerd created (ledger-owned); a wg link it did not create is never touched",
  },
  {
    kind: "file",
    policy: "remove",
    order: 50,
    operation: "remove routerd's block from the file (the file itself stays)",
    guard: (e) => (e.name.includes("#") ? undefined : `${e.name} is a whole file; only routerd-owned blocks are removed`),
    why: "whole files are never deleted; only the marked block routerd wrote",
  },
  {
    kind: "systemd.dropin",
    policy: "remove",
    order: 55,
    operation: "remove the drop-in file, then networkctl reload / restart systemd-resolved (on the real root)",
    guard: (e) => (isRouterdDropin(e.name) ? undefined : `${e.name} is not one of routerd's drop-in files (00-routerd-*.network, resolved.conf.d/routerd-*.conf)`),
    inRouterdNamespace: isRouterdDropin,
    why: "a whole file routerd wrote for networkd or resolved, named routerd and ledger-owned; nobody else writes it",
  },
  {
    kind: "linux.kernelModule",
    policy: "never",
    order: 100,
    operation: "none (the ledger forgets it; the module stays loaded)",
    guard: () => "kernel modules are never unloaded by routerd: rmmod of a link driver deletes every link of that type in every namespace, whoever made it",
    why: "the ledger records which modules routerd loaded (a module loaded before it is never recorded); unloading is left to the operator",
  },
  {
    kind: "routerd.lease",
    policy: "remove",
    order: 60,
    operation: "release the cluster lease if this node holds it",
    guard: always,
    why: "the lease file at spec.leasePath that this routerd wrote",
  },
  {
    kind: "linux.ipv4.address",
    policy: "ownerTeardown",
    order: 70,
    operation: "ip addr del (by the owning resource's teardown)",
    guard: always,
    why: "removing the wrong address can cut the management path; only the owner's teardown removes it",
  },
  {
    kind: "linux.ipv6.address",
    policy: "ownerTeardown",
    order: 70,
    operation: "ip -6 addr del (by the owning resource's teardown)",
    guard: always,
    why: "as for IPv4 addresses",
  },
  {
    kind: "linux.fdb",
    policy: "remove",
    order: 15,
    operation: "bridge fdb del 00:00:00:00:00:00 dev <link> dst <peer>",
    guard: always,
    why: "a VXLAN flood entry routerd added for a peer; only ledger-created ones are removed",
  },
  {
    kind: "linux.link",
    policy: "remove",
    order: 80,
    operation: "ip link del <ifname> (only a link routerd created: a tunnel, VRF, VXLAN)",
    // Ledger ownership is checked first (created, not adopted); the link type says routerd made it.
    guard: (e) => (typeof e.attributes?.linkType === "string" ? undefined : `${e.name} is a link routerd did not create; links are never deleted by cleanup`),
    why: "only links routerd itself created (they carry their link type); NICs, VLANs and bridges of others never",
  },
  {
    kind: "linux.fou",
    policy: "remove",
    order: 85,
    operation: "ip fou del port <port>",
    guard: always,
    why: "a FOU/GUE receive port routerd opened for a tunnel, after the tunnels using it are gone",
  },
  {
    kind: "linux.sysctl",
    policy: "never",
    order: 100,
    operation: "none",
    guard: () => "sysctl values are reconciled, never deleted",
    why: "host-global state, reconciled to desired values",
  },
  {
    kind: "linux.hostname",
    policy: "never",
    order: 100,
    operation: "none",
    guard: () => "the hostname is reconciled, never deleted",
    why: "host-global state",
  },
  {
    kind: "package",
    policy: "never",
    order: 100,
    operation: "none (routerd installs packages, it never uninstalls one)",
    guard: () => "packages are never uninstalled by routerd; the ledger forgets them",
    why: "other software on the host may depend on a package, whoever installed it",
  },
];

export class TeardownRegistry {
  private readonly specs = new Map<ArtifactKind, TeardownSpec>();
  constructor(specs: readonly TeardownSpec[] = SPECS) {
    for (const s of specs) this.specs.set(s.kind, s);
  }
  has(kind: ArtifactKind): boolean {
    return this.specs.has(kind);
  }
  get(kind: ArtifactKind): TeardownSpec {
    const s = this.specs.get(kind);
    if (!s) throw new Error(`artifact kind ${kind} has no teardown spec`);
    return s;
  }
  list(): TeardownSpec[] {
    return [...this.specs.values()];
  }
}

export const teardownRegistry = new TeardownRegistry();
