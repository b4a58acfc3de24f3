// IngressService rules for routerd_nat (DNAT to the active backends, NAT reflection) and routerd_filter
// (drop or reject while no backend is healthy). A health change re-renders the table and nft replaces it in
// one transaction: established connections keep their conntrack entry (and so their backend); only new
// connections see the new selection.
import { createHash } from "node:crypto";
import { activeIngressTargets, hairpinInterfaces, ingressBackends, type ConfigView, type IngressServiceSpec, type IngressTarget, type Resource } from "@routerd/api";
import { hashRanges, randomRanges, type BucketRange } from "./ingress-buckets.js";
import { join } from "./matches.js";
import { ifnameMatch } from "./text.js";

/** Per IngressService: every backend with a known address, and those taking new connections now. */
export interface IngressState {
  all: IngressTarget[];
  active: IngressTarget[];
}

/**
 * IngressService name → the backends health allows (by name; see apps/routerd/src/core/ingress.ts). A
 * service that is not in the map has no health information: every backend counts.
 */
export type IngressSelection = ReadonlyMap<string, readonly string[]>;

/** A service's state from its (resolved) spec and the health selection, its policy applied. */
export function ingressState(r: Resource<IngressServiceSpec>, selection: IngressSelection): IngressState {
  const all = knownTargets(r.spec);
  const allowed = selection.get(r.metadata.name);
  const usable = allowed ? all.filter((t) => allowed.includes(t.name)) : all;
  return { all, active: activeIngressTargets(r.spec.policy.selection, usable) };
}

export function knownTargets(spec: IngressServiceSpec): IngressTarget[] {
  return ingressBackends(spec).flatMap((b) => (b.address ? [{ name: b.name, address: b.address, port: b.port, weight: b.weight }] : []));
}

const mapEntries = (ranges: readonly BucketRange[]) =>
  `{ ${ranges.map((r) => `${r.from === r.to ? r.from : `${r.from}-${r.to}`} : ${r.target.address} . ${r.target.port}`).join(", ")} }`;

/** The hash seed is fixed per service: a random one (nft's default) would move every client on each replace. */
export function hashSeed(name: string): string {
  return `0x${createHash("sha256").update(`IngressService/${name}`).digest("hex").slice(0, 8)}`;
}

function dnatStatement(r: Resource<IngressServiceSpec>, state: IngressState): string {
  const { active, all } = state;
  if (active.length === 1) return `dnat to ${active[0]!.address}:${active[0]!.port}`;
  if (r.spec.policy.selection === "sourceHash") {
    return `dnat ip to jhash ip saddr mod 256 seed ${hashSeed(r.metadata.name)} map ${mapEntries(hashRanges(all, active))}`;
  }
  const { modulus, ranges } = randomRanges(active);
  return `dnat ip to numgen random mod ${modulus} map ${mapEntries(ranges)}`;
}

/**
 * Where the service is reached: the listen interface (and reflecting LAN interfaces), address and port.
 * In the inet filter table a rule without an address must say it is IPv4.
 */
function listenMatch(r: Resource<IngressServiceSpec>, view: ConfigView, family: "ip" | "inet"): string {
  const l = r.spec.listen;
  const ifnames = [l.interface, ...hairpinInterfaces(r.spec, view)].map((i) => view.ifname(i));
  return join(ifnameMatch("iifname", [...new Set(ifnames)]), l.address ? `ip daddr ${l.address}` : family === "inet" ? "meta nfproto ipv4" : "", `${l.protocol} dport ${l.port}`);
}

export function ingressNatRules(view: ConfigView, selection: IngressSelection): { prerouting: string[]; postrouting: string[] } {
  const prerouting: string[] = [];
  const postrouting: string[] = [];
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    const state = ingressState(r, selection);
    const l = r.spec.listen;
    if (!state.active.length) {
      prerouting.push(`# IngressService/${r.metadata.name}: no healthy backend (routerd_filter answers: ${r.spec.policy.onNoHealthyBackends})`);
      continue;
    }
    prerouting.push(`# IngressService/${r.metadata.name}: ${r.spec.policy.selection} over ${state.active.map((t) => t.name).join(", ")}`);
    prerouting.push(join(listenMatch(r, view, "ip"), dnatStatement(r, state)));
    const reflect = hairpinInterfaces(r.spec, view);
    if (reflect.length) {
      // Clients on these interfaces reach a backend through the router: masquerade so replies return through it.
      postrouting.push(`# IngressService/${r.metadata.name} NAT reflection`);
      postrouting.push(join(ifnameMatch("iifname", reflect.map((i) => view.ifname(i))), `meta l4proto ${l.protocol}`, `ct original ip daddr ${l.address}`, `ct original proto-dst ${l.port}`, "ct status dnat", "masquerade"));
    }
  }
  return { prerouting, postrouting };
}

const NO_BACKEND_VERDICT: Record<string, (protocol: string) => string> = {
  drop: () => "drop",
  reject: (protocol) => (protocol === "tcp" ? "reject with tcp reset" : "reject"),
};

/** routerd_filter rules (input and forward alike) for services that have no healthy backend right now. */
export function ingressFilterRules(view: ConfigView, selection: IngressSelection): string[] {
  const out: string[] = [];
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    if (ingressState(r, selection).active.length) continue;
    const verdict = NO_BACKEND_VERDICT[r.spec.policy.onNoHealthyBackends]!(r.spec.listen.protocol);
    out.push(`# IngressService/${r.metadata.name}: no healthy backend`, join(listenMatch(r, view, "inet"), verdict));
  }
  return out;
}
