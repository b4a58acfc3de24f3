import { describe, expect, it } from "vitest";
import type { ArtifactKind } from "./artifact.js";
import { checkLifecycleDeclarations, contractArtifactKinds, type LifecycleDeclaration } from "./lifecycle.js";
import { TeardownRegistry, teardownRegistry } from "./teardown-registry.js";

const G = "net.routerd.net/v1alpha1";

const sound: LifecycleDeclaration[] = [
  { apiVersion: G, kind: "Interface", class: "link", contract: { type: "ArtifactKinds", artifactKinds: ["linux.link"] } },
  {
    apiVersion: G,
    kind: "IPv4StaticAddress",
    class: "address",
    contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.ipv4.address"] },
  },
  { apiVersion: G, kind: "Zone", class: "firewall", contract: { type: "NoHostTeardownReason", reason: "input of the filter renderer" } },
];

describe("checkLifecycleDeclarations", () => {
  it("accepts declarations that each have one valid contract", () => {
    expect(checkLifecycleDeclarations(sound, teardownRegistry)).toEqual([]);
  });

  it("reports every problem of a broken list, one line each", () => {
    const broken = [
      ...sound,
      // declared twice
      { apiVersion: G, kind: "Interface", class: "link", contract: { type: "ArtifactKinds", artifactKinds: ["linux.link"] } },
      // no contract at all (as a JS caller or a bad cast could produce)
      { apiVersion: G, kind: "Bare", class: "system" } as unknown as LifecycleDeclaration,
      // an artifact kind the teardown registry does not know
      { apiVersion: G, kind: "Chain", class: "firewall", contract: { type: "ArtifactKinds", artifactKinds: ["nft.chain" as ArtifactKind] } },
      // a contract that names nothing
      { apiVersion: G, kind: "Empty", class: "system", contract: { type: "ArtifactKinds", artifactKinds: [] } },
      { apiVersion: G, kind: "EmptyTeardown", class: "system", contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: [] } },
      // a reason that says nothing
      { apiVersion: G, kind: "Silent", class: "system", contract: { type: "NoHostTeardownReason", reason: "  " } },
    ] satisfies LifecycleDeclaration[];
    expect(checkLifecycleDeclarations(broken, teardownRegistry)).toEqual([
      `${G}/Interface is declared twice`,
      `${G}/Bare has no teardown contract`,
      `${G}/Chain: artifact kind nft.chain is not in the teardown registry`,
      `${G}/Empty: ArtifactKinds lists no artifact kinds`,
      `${G}/EmptyTeardown: TeardownLifecycle lists no artifact kinds`,
      `${G}/Silent: NoHostTeardownReason needs a reason`,
    ]);
  });

  it("checks artifact kinds against the registry it is given", () => {
    const withoutLinks = new TeardownRegistry(teardownRegistry.list().filter((s) => s.kind !== "linux.link"));
    expect(checkLifecycleDeclarations(sound, withoutLinks)).toEqual([`${G}/Interface: artifact kind linux.link is not in the teardown registry`]);
  });

  it("same kind in two API groups is two declarations", () => {
    const twoGroups = [sound[0]!, { ...sound[0]!, apiVersion: "other.routerd.net/v1alpha1" }];
    expect(checkLifecycleDeclarations(twoGroups, teardownRegistry)).toEqual([]);
  });
});

describe("contractArtifactKinds", () => {
  it("lists the kinds of ArtifactKinds and TeardownLifecycle, none for NoHostTeardownReason", () => {
    expect(sound.map((d) => contractArtifactKinds(d.contract))).toEqual([["linux.link"], ["linux.ipv4.address"], []]);
  });
});
