import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { INGRESS_SERVICE_PROVIDES, hairpinInterfaces, hairpinMode, ingressBackends, ingressProbeName, ingressServiceStatus, type IngressServiceSpec } from "./ingress-service.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: test }\nspec:\n  resources:\n";
const res = (apiVersion: string, kind: string, name: string, spec: string) => `    - apiVersion: ${apiVersion}\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const NET = "net.routerd.net/v1alpha1";
const FW = "firewall.routerd.net/v1alpha1";
const BASE = [
  res(NET, "Interface", "wan", "{ ifname: wan0 }"),
  res(NET, "Interface", "lan", "{ ifname: lan0 }"),
  res(NET, "IPv4StaticAddress", "lan-addr", "{ interface: lan, address: 192.168.1.1/24 }"),
];
const svc = (name: string, spec: string) => res(FW, "IngressService", name, spec);
const LISTEN = "listen: { interface: wan, address: 203.0.113.10, protocol: tcp, port: 443 }";
const B2 = "backends: [{ name: a, address: 192.168.1.10, port: 8443 }, { name: b, address: 192.168.1.11, port: 8443 }]";

function load(...resources: string[]) {
  return loadConfig(HEAD + [...BASE, ...resources].join(""), "f.yaml");
}
function errors(...resources: string[]): [string, string, string][] {
  return load(...resources)
    .issues.filter((i) => i.severity === "error")
    .map((e) => [e.resource ?? "", e.field ?? "", e.message]);
}

describe("IngressService validation", () => {
  it("accepts a config written for the original, with its defaults", () => {
    const r = load(svc("web", `{ ${LISTEN}, ${B2}, healthCheck: { protocol: http, path: /healthz, expectedStatus: [200, 204], host: web.example, expectedBody: ok }, policy: { selection: random, onNoHealthyBackends: reject }, hairpin: { enabled: true, interfaces: [lan] } }`));
    expect(r.issues).toEqual([]);
    const spec = r.config!.resources.find((x) => x.kind === "IngressService")!.spec as IngressServiceSpec;
    expect(spec.healthCheck).toMatchObject({ protocol: "http", interval: "5s", timeout: "1s", healthyThreshold: 2, unhealthyThreshold: 3, tlsSkipVerify: false });
    expect(hairpinMode(spec.hairpin)).toBe("manual");
  });

  it("defaults: failover, drop, tcp probes, auto hairpin, weight 1, names backend-<index>", () => {
    const r = load(svc("web", `{ ${LISTEN}, backends: [{ address: 192.168.1.10, port: 80 }, { address: 192.168.1.11, port: 80 }] }`));
    expect(r.issues).toEqual([]);
    const spec = r.config!.resources.find((x) => x.kind === "IngressService")!.spec as IngressServiceSpec;
    expect(spec.policy).toEqual({ selection: "failover", onNoHealthyBackends: "drop" });
    expect(spec.healthCheck.protocol).toBe("tcp");
    expect(hairpinMode(spec.hairpin)).toBe("auto");
    expect(ingressBackends(spec).map((b) => [b.name, b.weight])).toEqual([["backend-0", 1], ["backend-1", 1]]);
    expect(ingressProbeName("web", "backend-1")).toBe("ingress.web.backend-1");
  });

  it.each([
    ["a backend without an address", `{ ${LISTEN}, backends: [{ port: 80 }] }`, "spec.backends[0]", /needs an address/],
    ["a host name as backend address", `{ ${LISTEN}, backends: [{ address: api.example, port: 80 }] }`, "spec.backends[0].address", /not an IPv4 address/],
    ["two backends with one name", `{ ${LISTEN}, backends: [{ name: a, address: 192.168.1.10, port: 80 }, { name: a, address: 192.168.1.11, port: 80 }] }`, "spec.backends[1].name", /same name as backends\[0\]/],
    ["a path on a tcp check", `{ ${LISTEN}, ${B2}, healthCheck: { path: /x } }`, "spec.healthCheck.path", /only applies to http and https/],
    ["a relative path", `{ ${LISTEN}, ${B2}, healthCheck: { protocol: http, path: readyz } }`, "spec.healthCheck.path", /absolute URL path/],
    ["tlsSkipVerify on http", `{ ${LISTEN}, ${B2}, healthCheck: { protocol: http, tlsSkipVerify: true } }`, "spec.healthCheck.tlsSkipVerify", /only applies to https/],
    ["timeout not below interval", `{ ${LISTEN}, ${B2}, healthCheck: { interval: 1s, timeout: 1s } }`, "spec.healthCheck.timeout", /shorter than interval/],
    ["an unknown selection", `{ ${LISTEN}, ${B2}, policy: { selection: roundRobin } }`, "spec.policy.selection", /failover/],
    ["manual hairpin without interfaces", `{ ${LISTEN}, ${B2}, hairpin: { mode: manual } }`, "spec.hairpin.interfaces", /needs the interfaces/],
    ["hairpin off with interfaces", `{ ${LISTEN}, ${B2}, hairpin: { mode: off, interfaces: [lan] } }`, "spec.hairpin.interfaces", /hairpin is off/],
    ["enabled contradicting mode", `{ ${LISTEN}, ${B2}, hairpin: { mode: off, enabled: true } }`, "spec.hairpin.enabled", /contradicts mode: off/],
    ["reflection without a listen address", `{ listen: { interface: wan, protocol: tcp, port: 443 }, ${B2}, hairpin: { mode: manual, interfaces: [lan] } }`, "spec.hairpin", /needs listen.address/],
    ["an unknown hairpin interface", `{ ${LISTEN}, ${B2}, hairpin: { mode: manual, interfaces: [dmz] } }`, "spec.hairpin.interfaces[0]", /dmz/],
  ])("refuses %s", (_name, spec, field, message) => {
    const errs = errors(svc("web", spec));
    expect(errs.map((e) => e[1])).toEqual([field]);
    expect(errs[0]![2]).toMatch(message);
  });

  it("refuses a listen endpoint another IngressService or a PortForward already uses", () => {
    const pf = res(FW, "PortForward", "pf", "{ listen: { interface: wan, address: 203.0.113.10, protocol: tcp, port: 443 }, target: { address: 192.168.1.5 } }");
    expect(errors(pf, svc("web", `{ ${LISTEN}, ${B2} }`))).toEqual([["IngressService/web", "spec.listen.port", "tcp port 443 on wan is already forwarded by PortForward/pf"]]);
    expect(errors(svc("a", `{ ${LISTEN}, ${B2} }`), svc("b", `{ ${LISTEN}, ${B2} }`))).toEqual([["IngressService/b", "spec.listen.port", "tcp port 443 on wan is already forwarded by IngressService/a"]]);
    expect(errors(svc("a", `{ ${LISTEN}, ${B2} }`), svc("b", `{ ${LISTEN.replace("tcp", "udp")}, ${B2} }`))).toEqual([]);
  });
});

describe("hairpin interfaces", () => {
  const reflected = (text: string) => {
    const r = load(svc("web", text));
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    const spec = r.config!.resources.find((x) => x.kind === "IngressService")!.spec as IngressServiceSpec;
    return hairpinInterfaces(spec, makeConfigView(r.config!));
  };
  const onLan = "listen: { interface: lan, address: 192.168.1.100, protocol: tcp, port: 443 }";
  it("auto reflects on the listen interface when listen address and a backend share its prefix", () => {
    expect(reflected(`{ ${onLan}, ${B2} }`)).toEqual(["lan"]);
  });
  it("auto does nothing for a WAN listen address but adds named interfaces; off does nothing", () => {
    expect(reflected(`{ ${LISTEN}, ${B2} }`)).toEqual([]);
    expect(reflected(`{ ${LISTEN}, ${B2}, hairpin: { interfaces: [lan] } }`)).toEqual(["lan"]);
    expect(reflected(`{ ${onLan}, ${B2}, hairpin: { mode: off } }`)).toEqual([]);
  });
});

describe("IngressService status", () => {
  const r = load(svc("web", `{ ${LISTEN}, hostname: web.example, ${B2} }`)).config!.resources.find((x) => x.kind === "IngressService")! as Parameters<typeof ingressServiceStatus>[0];
  it("publishes the spec's fields, and health's fields once routerd serve supplies them", () => {
    const backends = [{ name: "a", address: "192.168.1.10", port: 8443, weight: 1 }, { name: "b", address: "192.168.1.11", port: 8443, weight: 1 }];
    expect(ingressServiceStatus(r)).toEqual({ fields: { hostname: "web.example", listenAddress: "203.0.113.10", totalBackends: 2, backends, dryRun: false } });
    const facts = { activeBackends: [], healthyBackends: 0, backends: [], observedAt: "2026-01-01T00:00:00.000Z" };
    expect(ingressServiceStatus(r, facts)).toEqual({ fields: { hostname: "web.example", listenAddress: "203.0.113.10", totalBackends: 2, dryRun: false, ...facts } });
  });
  it("publishes only fields of the provides table", () => {
    const facts = { activeBackend: {}, activeBackends: [], healthyBackends: 0, backends: [], observedAt: "x" };
    for (const k of Object.keys(ingressServiceStatus(r, facts).fields)) expect(Object.keys(INGRESS_SERVICE_PROVIDES)).toContain(k);
  });
});
