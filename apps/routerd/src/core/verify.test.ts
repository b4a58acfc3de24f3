import { knownKind, unknownKind, type DesiredArtifact, type Inventory } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { verifyResults } from "./verify.js";

const OWNER = "net.routerd.net/v1alpha1/IPv4StaticAddress/lan";
const address = (name: string, extra: Record<string, unknown> = {}): DesiredArtifact => ({
  kind: "linux.ipv4.address",
  name,
  owners: [OWNER],
  action: "ensure",
  applyWith: "ip",
  attributes: { ifname: "lan0", address: name.split("/")[1], prefixLength: 24, ...extra },
});
const seen = (...names: string[]): Inventory => new Map([["linux.ipv4.address", knownKind(names.map((name) => ({ kind: "linux.ipv4.address" as const, name, attributes: {} })))]]);
const ok = (name: string) => ({ op: "ensure" as const, kind: "linux.ipv4.address" as const, name, ok: true });

describe("verifyResults", () => {
  it("keeps the results as they are when every desired artifact is on the host", () => {
    const results = [ok("lan0/192.0.2.2/24")];
    expect(verifyResults([address("lan0/192.0.2.2/24")], seen(), seen("lan0/192.0.2.2/24"), results)).toEqual(results);
  });

  it("turns a successful ensure whose artifact is absent afterwards into a failure", () => {
    const out = verifyResults([address("lan0/192.0.2.2/24")], seen("lan0/192.0.2.1/24"), seen(), [ok("lan0/192.0.2.2/24")]);
    expect(out).toEqual([{ ...ok("lan0/192.0.2.2/24"), ok: false, error: expect.stringContaining("not on the host when verified") }]);
  });

  it("adds a failure for a desired artifact that was present before the run and is gone after it", () => {
    const out = verifyResults([address("lan0/192.0.2.2/24"), address("lan0/192.0.2.3/24")], seen("lan0/192.0.2.3/24"), seen("lan0/192.0.2.2/24"), [ok("lan0/192.0.2.2/24")]);
    expect(out).toEqual([ok("lan0/192.0.2.2/24"), { op: "ensure", kind: "linux.ipv4.address", name: "lan0/192.0.2.3/24", ok: false, error: expect.stringContaining("side effect") }]);
  });

  it("leaves a failed step's own error, deferred steps, unknown observations and expired leases alone", () => {
    const failed = { ...ok("lan0/192.0.2.2/24"), ok: false, error: "RTNETLINK answers: File exists" };
    expect(verifyResults([address("lan0/192.0.2.2/24")], seen(), seen(), [failed])).toEqual([failed]);
    const unknown: Inventory = new Map([["linux.ipv4.address", unknownKind("ip failed")]]);
    expect(verifyResults([address("lan0/192.0.2.2/24")], seen(), unknown, [ok("lan0/192.0.2.2/24")])).toEqual([ok("lan0/192.0.2.2/24")]);
    const lease = { ...address("lan0/192.0.2.2/24", { validUntil: "2000-01-01T00:00:00Z" }), kind: "linux.ipv6.address" as const };
    const v6 = { ...ok("lan0/192.0.2.2/24"), kind: "linux.ipv6.address" as const };
    expect(verifyResults([lease], new Map([["linux.ipv6.address", knownKind([])]]), new Map([["linux.ipv6.address", knownKind([])]]), [v6])).toEqual([v6]);
    const daemon: DesiredArtifact = { kind: "routerd.daemon", name: "dhcpv4/wan", owners: [OWNER], action: "ensure", applyWith: "serve", attributes: {} };
    const deferred = { op: "ensure" as const, kind: "routerd.daemon" as const, name: "dhcpv4/wan", ok: true, deferred: true };
    expect(verifyResults([daemon], new Map([["routerd.daemon", knownKind([])]]), new Map([["routerd.daemon", knownKind([])]]), [deferred])).toEqual([deferred]);
  });
});
