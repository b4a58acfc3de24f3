import { describe, expect, it } from "vitest";
import { ARTIFACT_KINDS, type ArtifactKind } from "./artifact.js";
import { MAIN_TABLE, artifactNames, parseFileBlockName, parseFwmarkRuleName, parseRouteName } from "./artifact-names.js";
import { FWMARK_MAX, FWMARK_MIN, TeardownRegistry, fwmarkOf, inFwmarkRange, teardownRegistry } from "./teardown-registry.js";

const entry = (kind: ArtifactKind, name: string) => ({ kind, name, attributes: {} });

describe("teardown registry", () => {
  it("has exactly one spec for every artifact kind", () => {
    expect(teardownRegistry.list().map((s) => s.kind).sort()).toEqual([...ARTIFACT_KINDS].sort());
  });

  it("throws for a kind it does not know", () => {
    const partial = new TeardownRegistry(teardownRegistry.list().filter((s) => s.kind !== "nft.table"));
    expect(partial.has("nft.table")).toBe(false);
    expect(() => partial.get("nft.table")).toThrow(/nft.table has no teardown spec/);
  });

  it("never removes sysctls or the hostname, removes only links routerd created, and leaves addresses to their owners", () => {
    const policy = (k: ArtifactKind) => teardownRegistry.get(k).policy;
    expect(["linux.sysctl", "linux.hostname"].map((k) => policy(k as ArtifactKind))).toEqual(["never", "never"]);
    const links = teardownRegistry.get("linux.link");
    expect(links.guard({ kind: "linux.link", name: "eth0", attributes: { ifname: "eth0", adminUp: true } })).toMatch(/did not create/);
    expect(links.guard({ kind: "linux.link", name: "blue", attributes: { ifname: "blue", linkType: "vrf" } })).toBeUndefined();
    expect(links.order).toBeGreaterThan(teardownRegistry.get("linux.ipv4.route").order);
    expect(policy("linux.ipv4.address")).toBe("ownerTeardown");
    expect(policy("linux.ipv6.address")).toBe("ownerTeardown");
    expect(policy("nft.set")).toBe("withParent");
  });

  it("stops daemons and services before tables, rules before route tables", () => {
    const order = (k: ArtifactKind) => teardownRegistry.get(k).order;
    expect(order("routerd.daemon")).toBeLessThan(order("nft.table"));
    expect(order("systemd.service")).toBeLessThan(order("nft.table"));
    expect(order("linux.ipv4.fwmarkRule")).toBeLessThan(order("linux.ipv4.routeTable"));
    expect(order("linux.ipv4.route")).toBeLessThan(order("linux.ipv4.routeTable"));
  });

  it("documents every spec (operation and why are not empty)", () => {
    for (const s of teardownRegistry.list()) {
      expect(s.operation, s.kind).not.toBe("");
      expect(s.why, s.kind).not.toBe("");
    }
  });

  // Guards: undefined means eligible for removal once the ledger proves ownership.
  it.each<[ArtifactKind, string, boolean]>([
    ["nft.table", "ip/routerd_nat", true],
    ["nft.table", "inet/routerd_filter", true],
    ["nft.table", "ip/nat", false],
    ["nft.table", "ip/my_routerd_nat", false],
    ["nft.table", "ip/routerd-nat", false],
    ["systemd.service", "routerd-healthcheck.service", true],
    ["systemd.service", "routerd-dhcpv4-client@wan.service", true],
    ["systemd.service", "sshd.service", false],
    ["systemd.service", "routerd-foo.timer", false],
    ["linux.ipv4.fwmarkRule", "priority=1101,mark=0x101,table=101", true],
    ["linux.ipv4.fwmarkRule", "priority=1100,mark=0x100,table=100", true],
    ["linux.ipv4.fwmarkRule", "priority=1100,mark=0x1ff,table=100", true],
    ["linux.ipv4.fwmarkRule", "priority=10,mark=0x50,table=100", false],
    ["linux.ipv4.fwmarkRule", "priority=10,mark=0x200,table=100", false],
    ["linux.ipv4.routeTable", "101", true],
    ["linux.ipv4.routeTable", "254", false],
    ["linux.ipv4.routeTable", "main", false],
    ["file", "/etc/sysctl.d/90-routerd.conf#net.ipv4.ip_forward", true],
    ["file", "/etc/sysctl.d/90-routerd.conf", false],
    ["linux.link", "wan0", false],
    ["linux.sysctl", "net.ipv4.ip_forward", false],
    ["linux.hostname", "system", false],
  ])("guard of %s %s allows removal: %s", (kind, name, allowed) => {
    const refusal = teardownRegistry.get(kind).guard(entry(kind, name));
    if (allowed) expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(/\S/);
  });

  it.each<[ArtifactKind, string, boolean]>([
    ["nft.table", "ip/routerd_x", true],
    ["nft.table", "ip/filter", false],
    ["systemd.service", "routerd-bgp.service", true],
    ["systemd.service", "nginx.service", false],
    ["linux.ipv4.fwmarkRule", "priority=10,mark=0x150,table=150", true],
    ["linux.ipv4.fwmarkRule", "priority=10,mark=0x50,table=50", false],
  ])("routerd namespace of %s %s: %s", (kind, name, inside) => {
    expect(teardownRegistry.get(kind).inRouterdNamespace?.(name)).toBe(inside);
  });

  it("has no namespace for kinds where names prove nothing", () => {
    for (const k of ["linux.link", "linux.ipv4.route", "linux.ipv4.address", "file"] as const) {
      expect(teardownRegistry.get(k).inRouterdNamespace, k).toBeUndefined();
    }
  });
});

describe("fwmark range", () => {
  it.each([
    ["priority=1,mark=0x100,table=1", 0x100, true],
    ["priority=1,mark=0x1ff,table=1", 0x1ff, true],
    ["priority=1,mark=0xff,table=1", 0xff, false],
    ["priority=1,mark=0x200,table=1", 0x200, false],
    ["mark=336", 336, true],
    ["priority=1,table=1", undefined, false],
  ])("%s → mark %s, in range %s", (name, mark, inRange) => {
    expect(fwmarkOf(name)).toBe(mark);
    expect(inFwmarkRange(fwmarkOf(name))).toBe(inRange);
  });

  it("is 0x100-0x1ff", () => {
    expect([FWMARK_MIN, FWMARK_MAX]).toEqual([0x100, 0x1ff]);
  });
});

describe("artifact names", () => {
  it("round-trips route, fwmark rule and file block names", () => {
    expect(parseRouteName(artifactNames.route(MAIN_TABLE, "0.0.0.0/0", 100))).toEqual({ table: 254, destination: "0.0.0.0/0", metric: 100 });
    const rule = artifactNames.fwmarkRule(1101, 0x101, 101);
    expect(rule).toBe("priority=1101,mark=0x101,table=101");
    expect(parseFwmarkRuleName(rule)).toEqual({ priority: 1101, mark: 0x101, table: 101 });
    expect(fwmarkOf(rule)).toBe(0x101);
    expect(parseFileBlockName(artifactNames.fileBlock("/etc/a#b.conf", "key"))).toEqual({ path: "/etc/a#b.conf", block: "key" });
  });

  it.each([["table=x,dst=1/2,metric=0"], ["dst=0.0.0.0/0"], [""]])("parseRouteName(%j) is undefined", (name) => {
    expect(parseRouteName(name)).toBeUndefined();
  });

  it("rejects names that are not fwmark rules or file blocks", () => {
    expect(parseFwmarkRuleName("priority=1,mark=256,table=1")).toBeUndefined();
    expect(parseFileBlockName("/etc/hosts")).toBeUndefined();
  });

  it("names nft tables and sets family/table[/set], daemons daemon/instance", () => {
    expect(artifactNames.nftTable("ip", "routerd_nat")).toBe("ip/routerd_nat");
    expect(artifactNames.nftSet("inet", "routerd_filter", "set_admins")).toBe("inet/routerd_filter/set_admins");
    expect(artifactNames.daemon("routerd-healthcheck", "default")).toBe("routerd-healthcheck/default");
  });
});
