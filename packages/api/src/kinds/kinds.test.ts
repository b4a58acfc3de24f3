import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  ARTIFACT_KINDS,
  checkLifecycleDeclarations,
  contractArtifactKinds,
  mergeIntents,
  teardownRegistry,
  type ArtifactIntent,
  type LifecycleDeclaration,
} from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { API_GROUPS } from "../kind.js";
import { loadConfig } from "../load.js";
import { KINDS, kindDefinition } from "./index.js";

const FIXTURE = fileURLToPath(new URL("../testdata/all-kinds.yaml", import.meta.url));

function loadFixture() {
  const result = loadConfig(readFileSync(FIXTURE, "utf8"), FIXTURE);
  expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
  return result.config!;
}

describe("the kind registry", () => {
  it("has unique kinds in known API groups", () => {
    const names = KINDS.map((k) => k.kind);
    expect(new Set(names).size).toBe(names.length);
    for (const k of KINDS) {
      expect(Object.values(API_GROUPS), k.kind).toContain(k.apiVersion);
      expect(k.description.trim().length, k.kind).toBeGreaterThan(10);
      expect(kindDefinition(k.kind)).toBe(k);
    }
    expect(kindDefinition("Nope")).toBeUndefined();
  });

  it("every kind has exactly one valid lifecycle contract (checked against the real teardown registry)", () => {
    const declarations: LifecycleDeclaration[] = KINDS.map((k) => ({ apiVersion: k.apiVersion, kind: k.kind, class: k.class, contract: k.contract }));
    expect(checkLifecycleDeclarations(declarations, teardownRegistry)).toEqual([]);
  });

  it("every artifact kind a contract names exists in the teardown registry", () => {
    for (const k of KINDS) {
      for (const a of contractArtifactKinds(k.contract)) {
        expect(teardownRegistry.has(a), `${k.kind} → ${a}`).toBe(true);
        expect(ARTIFACT_KINDS, `${k.kind} → ${a}`).toContain(a);
      }
    }
  });

  it("a TeardownLifecycle kind is the only way an address artifact gets removed", () => {
    for (const k of KINDS) {
      for (const a of contractArtifactKinds(k.contract)) {
        if (teardownRegistry.get(a).policy === "ownerTeardown") expect(k.contract.type, `${k.kind} owns ${a}`).toBe("TeardownLifecycle");
      }
    }
  });
});

describe("intents of every kind (fixture testdata/all-kinds.yaml)", () => {
  const config = loadFixture();
  const view = makeConfigView(config);
  const byKind = new Map<string, ArtifactIntent[]>();
  for (const r of config.resources) {
    const intents = kindDefinition(r.kind)!.intents(r, view);
    byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), ...intents]);
  }

  it("the fixture contains every kind of KINDS", () => {
    expect([...new Set(config.resources.map((r) => r.kind))].sort()).toEqual(KINDS.map((k) => k.kind).sort());
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s emits at least one intent", (kind) => {
    expect(byKind.get(kind)?.length ?? 0).toBeGreaterThan(0);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s: every intent it ensures is covered by its contract, owned by itself", (kind, def) => {
    const covered = contractArtifactKinds(def.contract);
    for (const r of config.resources.filter((x) => x.kind === kind)) {
      for (const i of kindDefinition(kind)!.intents(r, view)) {
        expect(i.owner).toBe(r.owner);
        expect(i.owner).not.toMatch(/generation|\/\d+$/);
        if (i.action === "ensure") expect(covered, `${kind} ensures ${i.kind}`).toContain(i.kind);
        expect(i.applyWith).not.toBe("");
      }
    }
  });

  it("owner keys are apiVersion/kind/name", () => {
    for (const r of config.resources) expect(r.owner).toBe(`${r.apiVersion}/${r.kind}/${r.metadata.name}`);
  });

  it("an unmanaged Interface only observes its link", () => {
    expect(byKind.get("Interface")!.map((i) => [i.name, i.action])).toEqual([
      ["wan0", "ensure"],
      ["lan0", "ensure"],
      ["isp2", "observe"],
    ]);
  });

  it("an IPAddressSet is rendered as a set in each table whose rules refer to it", () => {
    expect(byKind.get("IPAddressSet")!.map((i) => i.name)).toEqual(["inet/routerd_filter/set_clients", "ip/routerd_nat/set_clients", "ip/routerd_policy/set_clients"]);
  });

  it("the intents of the whole fixture merge without conflict (shared tables merge their owners)", () => {
    const all = [...byKind.values()].flat();
    const merged = mergeIntents(all, (kind, a, b) => (kind === "nft.table" || JSON.stringify(a) === JSON.stringify(b) ? a : undefined));
    const nat = merged.find((d) => d.name === "ip/routerd_nat")!;
    expect(nat.owners.map((o) => o.split("/").slice(2).join("/")).sort()).toEqual(["IngressService/api", "NAT44Rule/masquerade", "PortForward/web"]);
    // Only the persistent Sysctl gets a block in the sysctl.d file; the LAN services share one dnsmasq config.
    expect(merged.filter((d) => d.kind === "file").map((d) => d.name).sort()).toEqual(["/etc/routerd/dnsmasq.conf#lan-services", "/etc/sysctl.d/90-routerd.conf#net.netfilter.nf_conntrack_max"]);
    expect(merged.find((d) => d.name === "/etc/routerd/dnsmasq.conf#lan-services")!.owners.map((o) => o.split("/").slice(2).join("/")).sort()).toEqual(["DHCPv4Reservation/printer", "DHCPv4Server/lan-dhcp", "DHCPv6Information/lan-info", "DHCPv6Server/lan-dhcpv6", "IPv6RouterAdvertisement/lan-ra"]);
  });

  it("an IPAddressSet nobody refers to emits nothing and is warned about", () => {
    const text =
      readFileSync(FIXTURE, "utf8") +
      ["    - apiVersion: net.routerd.net/v1alpha1", "      kind: IPAddressSet", "      metadata: { name: unused }", "      spec: { addresses: [10.9.9.9] }", ""].join("\n");
    const r = loadConfig(text, "unused.yaml");
    expect(r.config).toBeDefined();
    const unused = r.config!.resources.find((x) => x.metadata.name === "unused")!;
    expect(kindDefinition("IPAddressSet")!.intents(unused, makeConfigView(r.config!))).toEqual([]);
    expect(r.issues).toEqual([expect.objectContaining({ severity: "warning", resource: "IPAddressSet/unused", message: expect.stringMatching(/no rule refers/) })]);
  });
});
