import { describe, expect, it } from "vitest";
import {
  ARTIFACT_KINDS,
  IntentConflictError,
  artifactId,
  isArtifactKind,
  mergeIntents,
  ownerKey,
  parseOwnerKey,
  stableJson,
  type ArtifactIntent,
} from "./artifact.js";

const NAT = ownerKey("net.routerd.net/v1alpha1", "NAT44Rule", "lan");
const FWD = ownerKey("firewall.routerd.net/v1alpha1", "PortForward", "web");
const LINK_WATCHER = ownerKey("net.routerd.net/v1alpha1", "Interface", "wan-observer");
const SYSCTL_A = ownerKey("system.routerd.net/v1alpha1", "Sysctl", "forward-on");
const SYSCTL_B = ownerKey("system.routerd.net/v1alpha1", "Sysctl", "forward-off");

function intent(over: Partial<ArtifactIntent> & Pick<ArtifactIntent, "kind" | "name" | "owner">): ArtifactIntent {
  return { action: "ensure", applyWith: "test", attributes: {}, ...over };
}

describe("owner keys", () => {
  it.each([
    ["net.routerd.net/v1alpha1", "Interface", "wan"],
    ["system.routerd.net/v1alpha1", "Sysctl", "ip-forward"],
    ["firewall.routerd.net/v1alpha1", "FirewallRule", "a/b"],
  ])("%s %s %s round-trips and holds no generation", (apiVersion, kind, name) => {
    const key = ownerKey(apiVersion, kind, name);
    expect(key).toBe(`${apiVersion}/${kind}/${name}`);
    expect(parseOwnerKey(key)).toEqual({ apiVersion, kind, name });
  });

  it("rejects a key without group/version/kind/name", () => {
    expect(() => parseOwnerKey("Interface/wan")).toThrow(/malformed owner key/);
  });
});

describe("artifact kinds", () => {
  it("knows every kind of ARTIFACT_KINDS and nothing else", () => {
    for (const k of ARTIFACT_KINDS) expect(isArtifactKind(k)).toBe(true);
    expect(isArtifactKind("nft.chain")).toBe(false);
    expect(artifactId({ kind: "nft.table", name: "ip/routerd_nat" })).toBe("nft.table/ip/routerd_nat");
  });

  it("stableJson ignores key order but not array order", () => {
    expect(stableJson({ b: 1, a: { d: [2, 1], c: 0 } })).toBe(stableJson({ a: { c: 0, d: [2, 1] }, b: 1 }));
    expect(stableJson({ a: [1, 2] })).not.toBe(stableJson({ a: [2, 1] }));
  });
});

describe("mergeIntents", () => {
  it("merges a shared nft table into one artifact with every owner", () => {
    const table = { family: "ip", table: "routerd_nat" };
    const merged = mergeIntents([
      intent({ kind: "nft.table", name: "ip/routerd_nat", owner: NAT, attributes: table }),
      intent({ kind: "nft.table", name: "ip/routerd_nat", owner: FWD, attributes: { table: "routerd_nat", family: "ip" } }),
    ]);
    expect(merged).toEqual([
      { kind: "nft.table", name: "ip/routerd_nat", owners: [FWD, NAT].sort(), action: "ensure", applyWith: "test", attributes: table },
    ]);
  });

  it("lets a custom merge combine differing attributes of a shared artifact", () => {
    const merged = mergeIntents(
      [
        intent({ kind: "nft.table", name: "ip/routerd_nat", owner: NAT, attributes: { chains: ["postrouting"] } }),
        intent({ kind: "nft.table", name: "ip/routerd_nat", owner: FWD, attributes: { chains: ["prerouting"] } }),
      ],
      (_kind, a, b) => ({ chains: [...(a.chains as string[]), ...(b.chains as string[])].sort() }),
    );
    expect(merged[0]!.attributes).toEqual({ chains: ["postrouting", "prerouting"] });
  });

  it("throws IntentConflictError naming both owners when two sysctl values disagree", () => {
    const run = () =>
      mergeIntents([
        intent({ kind: "linux.sysctl", name: "net.ipv4.ip_forward", owner: SYSCTL_A, attributes: { value: "1" } }),
        intent({ kind: "linux.sysctl", name: "net.ipv4.ip_forward", owner: SYSCTL_B, attributes: { value: "0" } }),
      ]);
    expect(run).toThrow(IntentConflictError);
    try {
      run();
    } catch (err) {
      const e = err as IntentConflictError;
      expect(e.artifact).toBe("linux.sysctl/net.ipv4.ip_forward");
      expect(e.owners).toEqual([SYSCTL_A, SYSCTL_B]);
      expect(e.message).toContain('{"value":"1"} vs {"value":"0"}');
    }
  });

  it("accepts two sysctl owners that agree", () => {
    const merged = mergeIntents([
      intent({ kind: "linux.sysctl", name: "net.ipv4.ip_forward", owner: SYSCTL_B, attributes: { value: "1" } }),
      intent({ kind: "linux.sysctl", name: "net.ipv4.ip_forward", owner: SYSCTL_A, attributes: { value: "1" } }),
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.owners).toEqual([SYSCTL_A, SYSCTL_B].sort());
  });

  it.each([
    ["observe first", ["observe", "ensure"]],
    ["ensure first", ["ensure", "observe"]],
  ] as const)("observe + ensure becomes ensure with the ensuring intent's attributes (%s)", (_label, order) => {
    const by = { observe: LINK_WATCHER, ensure: ownerKey("net.routerd.net/v1alpha1", "Interface", "wan") };
    const attrs = { observe: { ifname: "wan0" }, ensure: { ifname: "wan0", mtu: 1500 } };
    const apply = { observe: "observer", ensure: "ip-batch" };
    const merged = mergeIntents(
      order.map((action) => intent({ kind: "linux.link", name: "wan0", owner: by[action], action, applyWith: apply[action], attributes: attrs[action] })),
    );
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ action: "ensure", applyWith: "ip-batch", attributes: attrs.ensure });
    expect(merged[0]!.owners).toEqual([by.ensure, by.observe].sort());
  });

  it("keeps observe-only artifacts as observe and drops delete intents", () => {
    const merged = mergeIntents([
      intent({ kind: "linux.link", name: "eth9", owner: LINK_WATCHER, action: "observe" }),
      intent({ kind: "linux.ipv4.route", name: "table=254,dst=0.0.0.0/0,metric=0", owner: NAT, action: "delete" }),
    ]);
    expect(merged.map((d) => [artifactId(d), d.action])).toEqual([["linux.link/eth9", "observe"]]);
  });

  it("lists an owner once even when it emits the same intent twice, sorted by artifact id", () => {
    const merged = mergeIntents([
      intent({ kind: "nft.table", name: "ip/routerd_policy", owner: NAT }),
      intent({ kind: "linux.hostname", name: "system", owner: NAT }),
      intent({ kind: "nft.table", name: "ip/routerd_policy", owner: NAT }),
    ]);
    expect(merged.map(artifactId)).toEqual(["linux.hostname/system", "nft.table/ip/routerd_policy"]);
    expect(merged[1]!.owners).toEqual([NAT]);
  });
});
