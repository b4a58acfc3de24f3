// IngressService backends and health: the probes routerd-healthcheck runs for them, and which backends take
// new connections given the probe states. Pure: config and health in, decision out.
import { durationMs, ingressBackends, ingressProbeName, type ConfigView, type IngressServiceSpec, type IngressTarget, type Resource } from "@routerd/api";
import { ingressState, knownTargets, type IngressSelection } from "@routerd/render";
import type { HealthState } from "./egress.js";

/** One probe per backend with a known address, in routerd-healthcheck's config format. */
export function ingressProbes(view: ConfigView): Record<string, unknown>[] {
  return view.all<IngressServiceSpec>("IngressService").flatMap((r) => {
    const hc = r.spec.healthCheck;
    const http = hc.protocol !== "tcp";
    return knownTargets(r.spec).map((t) => ({
      name: ingressProbeName(r.metadata.name, t.name),
      type: hc.protocol,
      target: t.address,
      port: t.port,
      ...(http && hc.path !== undefined ? { path: hc.path } : {}),
      ...(http && hc.expectedStatus !== undefined ? { expectStatus: hc.expectedStatus } : {}),
      ...(http && hc.host !== undefined ? { host: hc.host } : {}),
      ...(http && hc.expectedBody !== undefined ? { expectBody: hc.expectedBody } : {}),
      ...(hc.protocol === "https" ? { tlsVerify: !hc.tlsSkipVerify } : {}),
      intervalMs: durationMs(hc.interval),
      timeoutMs: durationMs(hc.timeout),
      healthyThreshold: hc.healthyThreshold,
      unhealthyThreshold: hc.unhealthyThreshold,
    }));
  });
}

const USABLE: ReadonlySet<HealthState | undefined> = new Set(["Healthy", "Failing"]);

/**
 * The backends that may take new connections, by name: Healthy (or Failing, still inside its threshold).
 * While none is known healthy (startup, daemon not answering), those not known to be down: routerd does
 * not take a service offline because it cannot see.
 */
export function usableBackends(r: Resource<IngressServiceSpec>, health: ReadonlyMap<string, HealthState>): string[] {
  const names = ingressBackends(r.spec).map((b) => b.name);
  const stateOf = (name: string) => health.get(ingressProbeName(r.metadata.name, name));
  const healthy = names.filter((n) => USABLE.has(stateOf(n)));
  return healthy.length ? healthy : names.filter((n) => stateOf(n) !== "Unhealthy");
}

/** Health's word on every IngressService: the backends it allows (policy and addresses come at render time). */
export function selectIngress(view: ConfigView, health: ReadonlyMap<string, HealthState>): Map<string, string[]> {
  return new Map(view.all<IngressServiceSpec>("IngressService").map((r) => [r.metadata.name, usableBackends(r, health)]));
}

/**
 * The IngressService status fields only routerd serve knows (they come from health), per `Kind/name`:
 * activeBackend (absent while none), activeBackends, healthyBackends, backends (each with its probe state),
 * observedAt.
 */
export function ingressFacts(view: ConfigView, health: ReadonlyMap<string, HealthState>, selection: IngressSelection, now: Date): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const endpoint = (t: IngressTarget) => ({ name: t.name, address: t.address, port: t.port });
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    const state = ingressState(r, selection);
    const active = state.active;
    const backends = state.all.map((t) => {
      const probe = health.get(ingressProbeName(r.metadata.name, t.name)) ?? "Unknown";
      return { ...endpoint(t), weight: t.weight, healthy: USABLE.has(probe), state: probe };
    });
    out.set(`IngressService/${r.metadata.name}`, {
      ...(active.length ? { activeBackend: endpoint(active[0]!) } : {}),
      activeBackends: active.map(endpoint),
      healthyBackends: backends.filter((b) => b.healthy).length,
      backends,
      observedAt: now.toISOString(),
    });
  }
  return out;
}
