// Runtime facts that daemons learn and resources depend on: a DHCPv4 lease, a delegated prefix. Each
// answer is present, absent or unknown; unknown (the daemon is not answering) never removes anything.

export interface Dhcpv4Lease {
  address: string;
  prefixLength: number;
  routers: string[];
  dnsServers: string[];
  domain?: string;
  /** Option 121; when present it takes precedence over the routers of option 3 (RFC 3442). */
  classlessRoutes: { destination: string; gateway: string }[];
  mtu?: number;
  serverId?: string;
  expiresAt: string;
  ntpServers?: string[];
  /** Seconds, and the client's timers (ISO times), when the daemon reports them. */
  leaseTime?: number;
  renewAt?: string;
  rebindAt?: string;
}

export interface DelegatedPrefix {
  /** Network address, e.g. 2001:db8:1000:: */
  prefix: string;
  prefixLength: number;
  preferredLifetime: number;
  validLifetime: number;
  expiresAt: string;
  dnsServers: string[];
  domainSearch: string[];
  /** Prefixes the server withdrew (valid lifetime 0), still to be announced as deprecated. */
  withdrawn?: { prefix: string; prefixLength: number }[];
  sntpServers?: string[];
  aftrName?: string;
}

/** What `ip -j addr` shows of one link: for an Interface's published status. */
export interface LinkFacts {
  ifname: string;
  mac?: string;
  operstate?: string;
  adminUp: boolean;
  /** Addresses with their prefix length, in the kernel's order. */
  ipv4: { address: string; prefixLength: number }[];
  ipv6: { address: string; prefixLength: number; scope?: string }[];
}

/** What routerd-pppoe-client reports for an up session (the PPPoESession status fields). */
export interface PppoeSession {
  /** The PPP interface. */
  device: string;
  /** The Ethernet interface PPPoE runs on. */
  interface: string;
  currentAddress?: string;
  peerAddress?: string;
  gateway?: string;
  dnsServers: string[];
  ipv6LocalLinkLocal?: string;
  ipv6PeerLinkLocal?: string;
  connectedAt?: string;
}

/** What `wg show <ifname> dump` says of one WireGuard device (never its private or preshared keys). */
export interface WireGuardFacts {
  ifname: string;
  /** Kernel module or wireguard-go over tun. */
  backend: "kernel" | "wireguard-go";
  publicKey?: string;
  listenPort?: number;
  fwmark?: number;
  peers: WireGuardPeerFacts[];
}

export interface WireGuardPeerFacts {
  publicKey: string;
  endpoint?: string;
  allowedIPs: string[];
  /** ISO time of the latest handshake; absent before the first one. */
  latestHandshake?: string;
  transferRxBytes: number;
  transferTxBytes: number;
  persistentKeepalive: number;
}

/** What a BGPRouter's routerd-bgp reports (GetStatus): its details and its resources (BGPPeers, "BFD/<name>"). */
export interface BgpDaemonFacts {
  details: Record<string, unknown>;
  resources: Record<string, { phase: string; details: Record<string, unknown> }>;
}

/** `phase`: the daemon's own phase for the resource (Bound, Renewing, ...), when it answered. */
export type RuntimeFact<T> =
  | { state: "present"; value: T; phase?: string }
  /** `last`: what the daemon still reports without a lease or prefix (a DHCPv6 client's last DNS information). */
  | { state: "absent"; reason?: string; last?: Partial<T>; phase?: string }
  | { state: "unknown"; reason: string };

export interface RuntimeView {
  dhcpv4Lease(resource: string): RuntimeFact<Dhcpv4Lease>;
  delegatedPrefix(resource: string): RuntimeFact<DelegatedPrefix>;
  /** A link on the host by its Linux name (read only when something needs an Interface's status). */
  link(ifname: string): RuntimeFact<LinkFacts>;
  pppoeSession(resource: string): RuntimeFact<PppoeSession>;
  /** The AAAA records of an AFTR's name (DS-Lite), resolved before planning. */
  aftr(name: string): RuntimeFact<string[]>;
  /** A WireGuard device by its Linux name (read only when the config has one). */
  wireguard(ifname: string): RuntimeFact<WireGuardFacts>;
  /** A VRRP VirtualAddress's role as keepalived last reported it (MASTER, BACKUP, FAULT, STOP). */
  vrrpRole(resource: string): RuntimeFact<string>;
  /** What the BGPRouter's routerd-bgp reports (peers, prefixes, BFD sessions). */
  bgp(router: string): RuntimeFact<BgpDaemonFacts>;
}

const NOT_READ = { state: "unknown", reason: "no daemon state was read" } as const;

export const UNKNOWN_RUNTIME: RuntimeView = {
  dhcpv4Lease: () => NOT_READ,
  delegatedPrefix: () => NOT_READ,
  link: () => ({ state: "unknown", reason: "links were not read" }),
  pppoeSession: () => NOT_READ,
  aftr: () => ({ state: "unknown", reason: "names were not resolved" }),
  wireguard: () => ({ state: "unknown", reason: "WireGuard devices were not read" }),
  vrrpRole: () => NOT_READ,
  bgp: () => NOT_READ,
};

/** A runtime view from plain maps (tests, and the core after it queried the daemons and the host). */
export function runtimeFrom(facts: {
  dhcpv4?: ReadonlyMap<string, RuntimeFact<Dhcpv4Lease>>;
  prefixes?: ReadonlyMap<string, RuntimeFact<DelegatedPrefix>>;
  pppoe?: ReadonlyMap<string, RuntimeFact<PppoeSession>>;
  /** AFTR names (DS-Lite) and their AAAA records. */
  aftr?: ReadonlyMap<string, RuntimeFact<string[]>>;
  /** Every link on the host, by name; undefined when they were not read. */
  links?: ReadonlyMap<string, LinkFacts>;
  /** Every WireGuard device, by name; undefined when they were not read, an Error when reading failed. */
  wireguard?: ReadonlyMap<string, WireGuardFacts> | Error;
  vrrpRoles?: ReadonlyMap<string, RuntimeFact<string>>;
  bgp?: ReadonlyMap<string, RuntimeFact<BgpDaemonFacts>>;
}): RuntimeView {
  const unknown = { state: "unknown", reason: "daemon state not available" } as const;
  const links = facts.links;
  const wg = facts.wireguard;
  return {
    dhcpv4Lease: (r) => facts.dhcpv4?.get(r) ?? unknown,
    delegatedPrefix: (r) => facts.prefixes?.get(r) ?? unknown,
    pppoeSession: (r) => facts.pppoe?.get(r) ?? unknown,
    aftr: (name) => facts.aftr?.get(name) ?? { state: "unknown", reason: `${name} was not resolved` },
    vrrpRole: (r) => facts.vrrpRoles?.get(r) ?? unknown,
    bgp: (r) => facts.bgp?.get(r) ?? unknown,
    link(ifname) {
      if (!links) return { state: "unknown", reason: "links were not read" };
      const l = links.get(ifname);
      return l ? { state: "present", value: l } : { state: "absent", reason: "no such link on the host" };
    },
    wireguard(ifname) {
      if (!wg) return { state: "unknown", reason: "WireGuard devices were not read" };
      if (wg instanceof Error) return { state: "unknown", reason: wg.message };
      const d = wg.get(ifname);
      return d ? { state: "present", value: d } : { state: "absent", reason: "no such WireGuard device on the host" };
    },
  };
}
