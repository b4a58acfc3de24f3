import { loadConfig, makeConfigView, type IngressServiceSpec } from "@routerd/api";
import { ingressState } from "@routerd/render";
import { describe, expect, it } from "vitest";
import type { HealthState } from "./egress.js";
import { ingressFacts, ingressProbes, selectIngress } from "./ingress.js";

const CONFIG = `apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: t }
spec:
  resources:
    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: wan }, spec: { ifname: wan0 } }
    - apiVersion: firewall.routerd.net/v1alpha1
      kind: IngressService
      metadata: { name: web }
      spec:
        listen: { interface: wan, protocol: tcp, port: 443 }
        backends:
          - { name: a, address: 192.0.2.1, port: 8443 }
          - { name: b, address: 192.0.2.2, port: 8443 }
          - { name: spare, address: 192.0.2.3, port: 8443, weight: 0 }
        healthCheck: { protocol: https, path: /readyz, host: web.example, interval: 2s, unhealthyThreshold: 2 }
        policy: { selection: random }
    - apiVersion: firewall.routerd.net/v1alpha1
      kind: IngressService
      metadata: { name: ssh }
      spec:
        listen: { interface: wan, protocol: tcp, port: 22 }
        backends: [{ address: 192.0.2.9, port: 22 }, { address: 192.0.2.10, port: 22 }]
`;

const loaded = loadConfig(CONFIG, "t.yaml");
const view = makeConfigView(loaded.config!);
/** Backends taking new connections per service: health's selection, then the service's policy. */
const active = (health: Record<string, HealthState>) => {
  const selection = selectIngress(view, new Map(Object.entries(health)));
  return Object.fromEntries(view.all<IngressServiceSpec>("IngressService").map((r) => [r.metadata.name, ingressState(r, selection).active.map((t) => t.name)]));
};

describe("ingressProbes", () => {
  it("derives one probe per backend, with the service's health check", () => {
    expect(loaded.issues).toEqual([]);
    const probes = ingressProbes(view);
    expect(probes.map((p) => p.name)).toEqual(["ingress.web.a", "ingress.web.b", "ingress.web.spare", "ingress.ssh.backend-0", "ingress.ssh.backend-1"]);
    expect(probes[0]).toEqual({ name: "ingress.web.a", type: "https", target: "192.0.2.1", port: 8443, path: "/readyz", host: "web.example", tlsVerify: true, intervalMs: 2000, timeoutMs: 1000, healthyThreshold: 2, unhealthyThreshold: 2 });
    expect(probes[3]).toEqual({ name: "ingress.ssh.backend-0", type: "tcp", target: "192.0.2.9", port: 22, intervalMs: 5000, timeoutMs: 1000, healthyThreshold: 2, unhealthyThreshold: 3 });
  });
});

describe("selectIngress", () => {
  it("uses every weighted backend while nothing is known (startup, daemon not answering)", () => {
    expect(active({})).toEqual({ web: ["a", "b"], ssh: ["backend-0"] });
  });

  it("keeps Healthy and Failing backends, drops Unhealthy, Unknown and Passing ones once one is healthy", () => {
    expect(active({ "ingress.web.a": "Unhealthy", "ingress.web.b": "Healthy", "ingress.web.spare": "Healthy" })).toMatchObject({ web: ["b"] });
    expect(active({ "ingress.web.a": "Failing", "ingress.web.b": "Passing" })).toMatchObject({ web: ["a"] });
    expect(active({ "ingress.ssh.backend-0": "Unhealthy", "ingress.ssh.backend-1": "Healthy" })).toMatchObject({ ssh: ["backend-1"] });
  });

  it("falls back to the weight-0 spare, then to nothing when every backend is down", () => {
    expect(active({ "ingress.web.a": "Unhealthy", "ingress.web.b": "Unhealthy", "ingress.web.spare": "Healthy" })).toMatchObject({ web: ["spare"] });
    expect(active({ "ingress.web.a": "Unhealthy", "ingress.web.b": "Unhealthy", "ingress.web.spare": "Unhealthy" })).toMatchObject({ web: [] });
  });

  it("while none is healthy yet, uses those not known to be down", () => {
    expect(active({ "ingress.web.a": "Unhealthy", "ingress.web.b": "Unknown", "ingress.web.spare": "Passing" })).toMatchObject({ web: ["b"] });
  });
});

describe("ingressFacts", () => {
  it("publishes the active and healthy backends with their probe states", () => {
    const health = new Map<string, HealthState>([["ingress.web.a", "Unhealthy"], ["ingress.web.b", "Healthy"], ["ingress.web.spare", "Failing"]]);
    const facts = ingressFacts(view, health, selectIngress(view, health), new Date("2026-01-02T03:04:05Z"));
    expect(facts.get("IngressService/web")).toEqual({
      activeBackend: { name: "b", address: "192.0.2.2", port: 8443 },
      activeBackends: [{ name: "b", address: "192.0.2.2", port: 8443 }],
      healthyBackends: 2,
      backends: [
        { name: "a", address: "192.0.2.1", port: 8443, weight: 1, healthy: false, state: "Unhealthy" },
        { name: "b", address: "192.0.2.2", port: 8443, weight: 1, healthy: true, state: "Healthy" },
        { name: "spare", address: "192.0.2.3", port: 8443, weight: 0, healthy: true, state: "Failing" },
      ],
      observedAt: "2026-01-02T03:04:05.000Z",
    });
  });

  it("leaves activeBackend unset while no backend takes connections", () => {
    const health = new Map<string, HealthState>([["ingress.ssh.backend-0", "Unhealthy"], ["ingress.ssh.backend-1", "Unhealthy"]]);
    const facts = ingressFacts(view, health, selectIngress(view, health), new Date(0)).get("IngressService/ssh")!;
    expect(facts.activeBackend).toBeUndefined();
    expect(facts).toMatchObject({ activeBackends: [], healthyBackends: 0 });
  });
});
