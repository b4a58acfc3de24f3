// IngressService backends and health: the probes routerd-healthcheck runs for them, and which backends take
// new connections given the probe states. Pure: config and health in, decision out.
import { activeIngressTargets, durationMs, ingressProbeName, type ConfigView, type IngressServiceSpec, type IngressTarget, type Resource } from "@routerd/api";
import { knownTargets, type IngressState } from "@routerd/render";
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
 * The backends that may take new connections: Healthy (or Failing, still inside its threshold). While none
 * is known healthy (startup, daemon not answering), those not known to be down: routerd does not take a
 * service offline because it cannot see.
 */
export function usableTargets(r: Resource<IngressServiceSpec>, health: ReadonlyMap<string, HealthState>): IngressTarget[] {
  const all = knownTargets(r.spec);
  const stateOf = (t: IngressTarget) => health.get(ingressProbeName(r.metadata.name, t.name));
  const healthy = all.filter((t) => USABLE.has(stateOf(t)));
  return healthy.length ? healthy : all.filter((t) => stateOf(t) !== "Unhealthy");
}

export function selectIngress(view: ConfigView, health: ReadonlyMap<string, HealthState>): Map<string, IngressState> {
  const out = new Map<string, IngressState>();
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    out.set(r.metadata.name, { all: knownTargets(r.spec), active: activeIngressTargets(r.spec.policy.selection, usableTargets(r, health)) });
  }
  return out;
}

/**
 * The IngressService status fields only routerd serve knows (they come from health), per `Kind/name`:
 * activeBackend (absent while none), activeBackends, healthyBackends, backends (each with its probe state),
 * observedAt.
 */
export function ingressFacts(view: ConfigView, health: ReadonlyMap<string, HealthState>, selection: ReadonlyMap<string, IngressState>, now: Date): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const endpoint = (t: IngressTarget) => ({ name: t.name, address: t.address, port: t.port });
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    const state = selection.get(r.metadata.name);
    const active = state?.active ?? [];
    const backends = (state?.all ?? []).map((t) => {
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
