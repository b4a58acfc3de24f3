// What `routerctl status` says about a resource beyond its phase: the lease an uplink holds, the delegated
// prefix, a probe's state, which uplink carries traffic, which backends take a service's connections. Pure: the facts serve already has in, one line per
// resource out (resources without live facts keep their reconcile message).
import { ingressBackends, ingressProbeName, type ConfigView, type EgressRoutePolicySpec, type IngressServiceSpec, type RuntimeFact, type RuntimeView } from "@routerd/api";
import type { EgressDecision, HealthState } from "../core/egress.js";

export interface LiveFacts {
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
