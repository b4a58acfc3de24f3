import { describe, expect, it } from "vitest";
import { effectiveView } from "./effective-view.js";
import { loadConfig } from "./load.js";
import { evaluateWhen, whenReferences, type WhenPredicate, type WhenState } from "./when.js";

const state: WhenState = new Map([
  ["HealthCheck/up", { phase: "Healthy" }],
  ["HealthCheck/down", { phase: "Unhealthy" }],
]);
// Three atoms with known truth values: T (true), F (false), U (undecidable: state not known yet).
const T: WhenPredicate = { resource: "HealthCheck/up", phase: "Healthy" };
const F: WhenPredicate = { resource: "HealthCheck/down", phase: "Healthy" };
const U: WhenPredicate = { resource: "HealthCheck/later", phase: "Healthy" };
const atoms = [
  ["T", T, true],
  ["F", F, false],
  ["U", U, undefined],
] as const;

// Kleene's strong three-valued logic, written out as truth tables.
const AND = { TT: true, TF: false, TU: undefined, FT: false, FF: false, FU: false, UT: undefined, UF: false, UU: undefined } as const;
const OR = { TT: true, TF: true, TU: true, FT: true, FF: false, FU: undefined, UT: true, UF: undefined, UU: undefined } as const;

describe("evaluateWhen", () => {
  it.each([
    ["phase equal", { resource: "HealthCheck/up", phase: "Healthy" }, true],
    ["phase differs", { resource: "HealthCheck/down", phase: "Healthy" }, false],
    ["phaseIn contains", { resource: "HealthCheck/down", phaseIn: ["Degraded", "Unhealthy"] }, true],
    ["phaseIn does not contain", { resource: "HealthCheck/up", phaseIn: ["Unhealthy"] }, false],
    ["bare resource: it exists with some phase", { resource: "HealthCheck/down" }, true],
    ["state unknown", { resource: "HealthCheck/later" }, undefined],
    ["state unknown with phaseIn", { resource: "HealthCheck/later", phaseIn: ["Healthy"] }, undefined],
  ] as const)("atom: %s", (_label, p, expected) => {
    expect(evaluateWhen(p as WhenPredicate, state)).toBe(expected);
  });

  const pairs = atoms.flatMap(([a, pa]) => atoms.map(([b, pb]) => [`${a}${b}`, pa, pb] as const));
  it.each(pairs)("all/any of %s", (key, a, b) => {
    expect(evaluateWhen({ all: [a, b] }, state)).toBe(AND[key as keyof typeof AND]);
    expect(evaluateWhen({ any: [a, b] }, state)).toBe(OR[key as keyof typeof OR]);
  });

  it.each(atoms)("not %s", (_label, p, value) => {
    expect(evaluateWhen({ not: p }, state)).toBe(value === undefined ? undefined : !value);
  });

  it("nests: a false conjunct decides even beside an undecidable one, a true disjunct likewise", () => {
    expect(evaluateWhen({ all: [U, { not: T }] }, state)).toBe(false);
    expect(evaluateWhen({ any: [U, { not: F }] }, state)).toBe(true);
    expect(evaluateWhen({ not: { all: [T, { any: [F, U] }] } }, state)).toBeUndefined();
  });

  it("lists the resources a predicate refers to", () => {
    expect(whenReferences({ all: [T, { any: [F, { not: U }] }] })).toEqual(["HealthCheck/up", "HealthCheck/down", "HealthCheck/later"]);
  });
});

describe("effectiveView", () => {
  const text = `apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: t }
spec:
  resources:
    - apiVersion: net.routerd.net/v1alpha1
      kind: Interface
      metadata: { name: wan }
      spec: {}
    - apiVersion: net.routerd.net/v1alpha1
      kind: HealthCheck
      metadata: { name: isp1 }
      spec: { type: icmp, target: 192.0.2.1 }
    - apiVersion: net.routerd.net/v1alpha1
      kind: IPv4Route
      metadata: { name: primary }
      spec: { destination: default, device: wan, when: { resource: HealthCheck/isp1, phase: Healthy } }
    - apiVersion: net.routerd.net/v1alpha1
      kind: IPv4Route
      metadata: { name: fallback }
      spec: { destination: default, device: wan, metric: 100, when: { not: { resource: HealthCheck/isp1, phase: Healthy } } }
`;
  const config = loadConfig(text, "f.yaml").config!;
  const names = (rs: { metadata: { name: string } }[]) => rs.map((r) => r.metadata.name);

  it.each([
    ["isp1 healthy", new Map([["HealthCheck/isp1", { phase: "Healthy" }]]), ["wan", "isp1", "primary"], ["fallback"], []],
    ["isp1 unhealthy", new Map([["HealthCheck/isp1", { phase: "Unhealthy" }]]), ["wan", "isp1", "fallback"], ["primary"], []],
    ["isp1 not known yet", new Map(), ["wan", "isp1"], [], ["primary", "fallback"]],
  ])("%s", (_label, s, active, inactive, undecided) => {
    const view = effectiveView(config, s);
    expect(view.config).toBe(config);
    expect(names(view.active)).toEqual(active);
    expect(names(view.inactive)).toEqual(inactive);
    expect(names(view.undecided)).toEqual(undecided);
  });

  it("keeps the parsed when on the resource, not in its spec", () => {
    const primary = config.resources.find((r) => r.metadata.name === "primary")!;
    expect(primary.when).toEqual({ resource: "HealthCheck/isp1", phase: "Healthy" });
    expect(primary.spec).not.toHaveProperty("when");
  });
});
