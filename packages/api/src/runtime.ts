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
}

export type RuntimeFact<T> =
  | { state: "present"; value: T }
  /** `last`: what the daemon still reports without a lease or prefix (a DHCPv6 client's last DNS information). */
  | { state: "absent"; reason?: string; last?: Partial<T> }
  | { state: "unknown"; reason: string };

export interface RuntimeView {
  dhcpv4Lease(resource: string): RuntimeFact<Dhcpv4Lease>;
  delegatedPrefix(resource: string): RuntimeFact<DelegatedPrefix>;
}

export const UNKNOWN_RUNTIME: RuntimeView = {
  dhcpv4Lease: () => ({ state: "unknown", reason: "no daemon state was read" }),
  delegatedPrefix: () => ({ state: "unknown", reason: "no daemon state was read" }),
};

/** A runtime view from plain maps (tests, and the core after it queried the daemons). */
export function runtimeFrom(facts: { dhcpv4?: ReadonlyMap<string, RuntimeFact<Dhcpv4Lease>>; prefixes?: ReadonlyMap<string, RuntimeFact<DelegatedPrefix>> }): RuntimeView {
  const unknown = { state: "unknown", reason: "daemon state not available" } as const;
  return {
    dhcpv4Lease: (r) => facts.dhcpv4?.get(r) ?? unknown,
    delegatedPrefix: (r) => facts.prefixes?.get(r) ?? unknown,
  };
}
