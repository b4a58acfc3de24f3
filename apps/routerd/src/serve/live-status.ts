// What `routerctl status` says about a resource beyond its phase: the lease an uplink holds, the delegated
// prefix, a probe's state, which uplink carries traffic, which backends take a service's connections, a BGP
// session's state and prefix counts, a WireGuard peer's last handshake, the NTP servers in use. Pure: the facts serve already has in, one line per
// resource out (resources without live facts keep their reconcile message).
import {
  ingressBackends,
  ingressProbeName,
  ntpStatus,
  wireGuardIfname,
  type ConfigView,
  type EgressRoutePolicySpec,
  type IngressServiceSpec,
  type NTPClientSpec,
  type RuntimeFact,
  type RuntimeView,
  type WireGuardInterfaceSpec,
  type WireGuardPeerSpec,
} from "@routerd/api";
import type { EgressDecision, HealthState } from "../core/egress.js";

export interface LiveFacts {
  /** The active resources with their `*From` values filled in (an NTPClient's servers from a lease). */
  resolved?: ConfigView;
  view: ConfigView;
  runtime: RuntimeView;
  health: ReadonlyMap<string, HealthState>;
  decisions: ReadonlyMap<string, EgressDecision>;
  /** IngressService name → the backends health allows (serve's selectIngress). */
  ingress: ReadonlyMap<string, readonly string[]>;
}

function missing(what: string, fact: Exclude<RuntimeFact<unknown>, { state: "present" }>): string {
  return fact.state === "unknown" ? `${what}: the client is not answering` : `no ${what}${fact.reason ? ` (${fact.reason})` : ""}`;
}

/** 1536 → "1.5 KiB": transfer counters as an operator reads them. */
export function byteSize(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

function wireGuardPeerLine(name: string, f: LiveFacts): string {
  const spec = f.view.find<WireGuardPeerSpec>("WireGuardPeer", name)?.spec;
  if (!spec) return "";
  const dev = f.view.find<WireGuardInterfaceSpec>("WireGuardInterface", spec.interface);
  const device = f.runtime.wireguard(dev ? wireGuardIfname(dev) : f.view.ifname(spec.interface));
  if (device.state === "unknown") return `WireGuard state not read (${device.reason})`;
  if (device.state === "absent") return `no device ${dev ? wireGuardIfname(dev) : spec.interface} (${device.reason})`;
  const peer = device.value.peers.find((p) => p.publicKey === spec.publicKey);
  if (!peer) return `not on ${device.value.ifname} yet`;
  const traffic = `rx ${byteSize(peer.transferRxBytes)}, tx ${byteSize(peer.transferTxBytes)}`;
  if (!peer.latestHandshake) return `no handshake yet (${spec.endpoint ? `dialling ${spec.endpoint}` : "waiting for the peer to dial in"}); ${traffic}`;
  // Absolute times, as the lease lines give them: the line is computed at a reconcile and read later.
  return `latest handshake ${peer.latestHandshake}${peer.endpoint ? ` from ${peer.endpoint}` : ""}; ${traffic}`;
}

function ntpClientLine(name: string, f: LiveFacts): string {
  const spec = (f.resolved ?? f.view).find<NTPClientSpec>("NTPClient", name)?.spec;
  if (!spec) return "";
  const { servers, source } = ntpStatus(spec);
  if (!servers.length) return `no server known yet (source ${source}${spec.serverFrom?.length ? ": waiting for the lease's NTP servers" : ""})`;
  return `${spec.provider} → ${servers.join(", ")} (source ${source})`;
}

/** One neighbour as routerd-bgp reports it in its router's details (`routerctl bgp peers` has the same). */
interface BgpNeighbour {
  address: string;
  peer: string;
  state: string;
  since?: string;
  receivedPrefixes?: number;
  acceptedPrefixes?: number;
  advertisedPrefixes?: number;
}

function bgpNeighbours(router: string, f: LiveFacts): BgpNeighbour[] | string {
  const fact = f.runtime.bgp(router);
  if (fact.state === "unknown") return `routerd-bgp@${router} is not answering`;
  if (fact.state === "absent") return `routerd-bgp@${router} has not reported yet`;
  return Array.isArray(fact.value.details.peers) ? (fact.value.details.peers as BgpNeighbour[]) : [];
}

function bgpPeerLine(name: string, f: LiveFacts): string {
  const spec = f.view.find<{ routerRef: string }>("BGPPeer", name)?.spec;
  if (!spec) return "";
  const all = bgpNeighbours(spec.routerRef, f);
  if (typeof all === "string") return all;
  return all
    .filter((n) => n.peer === name)
    .map((n) => {
      const up = n.state === "Established" && n.since ? ` since ${n.since}` : "";
      return `${n.address} ${n.state}${up}, prefixes ${n.receivedPrefixes ?? 0} received / ${n.acceptedPrefixes ?? 0} accepted / ${n.advertisedPrefixes ?? 0} advertised`;
    })
    .join("; ");
}

function bgpRouterLine(name: string, f: LiveFacts): string {
  const all = bgpNeighbours(name, f);
  if (typeof all === "string") return all;
  const fact = f.runtime.bgp(name);
  const prefixes = fact.state === "present" ? fact.value.details.prefixes : undefined;
  const up = all.filter((n) => n.state === "Established").length;
  return `${up} of ${all.length} neighbours established${typeof prefixes === "number" ? `, ${prefixes} prefixes` : ""}`;
}

const MESSAGES: Record<string, (name: string, f: LiveFacts) => string> = {
  DHCPv4Client(name, f) {
    const lease = f.runtime.dhcpv4Lease(name);
    if (lease.state !== "present") return missing("lease", lease);
    const l = lease.value;
    return `${l.address}/${l.prefixLength}${l.routers[0] ? ` via ${l.routers[0]}` : ""}, until ${l.expiresAt}`;
  },
  DHCPv6PrefixDelegation(name, f) {
    const prefix = f.runtime.delegatedPrefix(name);
    if (prefix.state !== "present") return missing("prefix", prefix);
    return `${prefix.value.prefix}/${prefix.value.prefixLength}, until ${prefix.value.expiresAt}`;
  },
  HealthCheck: (name, f) => f.health.get(name) ?? "Unknown (the healthcheck daemon is not answering yet)",
  EgressRoutePolicy(name, f) {
    const d = f.decisions.get(name);
    if (!d) return "";
    const others = f.view.find<EgressRoutePolicySpec>("EgressRoutePolicy", name)?.spec.candidates.filter((c) => c.name !== d.active).map((c) => c.name) ?? [];
    const pending = d.pending ? `; back to ${d.pending.candidate} once it stays usable for failbackDelay` : "";
    return `active ${d.active}${others.length ? ` (standby ${others.join(", ")})` : ""}${pending}`;
  },
  IngressService(name, f) {
    const spec = f.view.find<IngressServiceSpec>("IngressService", name)?.spec;
    if (!spec) return "";
    const active = f.ingress.get(name) ?? [];
    const out = ingressBackends(spec)
      .filter((b) => !active.includes(b.name))
      .map((b) => `${b.name} ${f.health.get(ingressProbeName(name, b.name)) ?? "Unknown"}`);
    return `${active.length ? `new connections go to ${active.join(", ")}` : "no healthy backend"}${out.length ? ` (out: ${out.join(", ")})` : ""}`;
  },
  BGPRouter: bgpRouterLine,
  BGPPeer: bgpPeerLine,
  WireGuardPeer: wireGuardPeerLine,
  NTPClient: ntpClientLine,
};

/** `Kind/name` → what is live about it, for the kinds that have live facts. */
export function liveMessages(f: LiveFacts): Map<string, string> {
  const out = new Map<string, string>();
  for (const [kind, message] of Object.entries(MESSAGES)) {
    for (const r of f.view.all(kind)) {
      const text = message(r.metadata.name, f);
      if (text) out.set(`${kind}/${r.metadata.name}`, text);
    }
  }
  return out;
}
