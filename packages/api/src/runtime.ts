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
  /** A VRRP VirtualAddress's role as keepalived last reported it (MASTER, BACKUP, FAULT, STOP). */
  vrrpRole(resource: string): RuntimeFact<string>;
}

const NOT_READ = { state: "unknown", reason: "no daemon state was read" } as const;

export const UNKNOWN_RUNTIME: RuntimeView = {
  dhcpv4Lease: () => NOT_READ,
  delegatedPrefix: () => NOT_READ,
  link: () => ({ state: "unknown", reason: "links were not read" }),
  vrrpRole: () => NOT_READ,
};

/** A runtime view from plain maps (tests, and the core after it queried the daemons and the host). */
export function runtimeFrom(facts: {
  dhcpv4?: ReadonlyMap<string, RuntimeFact<Dhcpv4Lease>>;
  prefixes?: ReadonlyMap<string, RuntimeFact<DelegatedPrefix>>;
  /** Every link on the host, by name; undefined when they were not read. */
  links?: ReadonlyMap<string, LinkFacts>;
  vrrpRoles?: ReadonlyMap<string, RuntimeFact<string>>;
}): RuntimeView {
  const unknown = { state: "unknown", reason: "daemon state not available" } as const;
  const links = facts.links;
  return {
    dhcpv4Lease: (r) => facts.dhcpv4?.get(r) ?? unknown,
    delegatedPrefix: (r) => facts.prefixes?.get(r) ?? unknown,
    vrrpRole: (r) => facts.vrrpRoles?.get(r) ?? unknown,
    link(ifname) {
      if (!links) return { state: "unknown", reason: "links were not read" };
      const l = links.get(ifname);
      return l ? { state: "present", value: l } : { state: "absent", reason: "no such link on the host" };
    },
  };
}
