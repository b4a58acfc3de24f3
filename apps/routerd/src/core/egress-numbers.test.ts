// The ledger is where allocated EgressRoutePolicy numbers are remembered: a candidate's fwmark rule carries
// its name, so a restarted routerd (or a reordered config) gives it the same numbers again.
import { Ledger } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { recordedNumbers } from "./egress-numbers.js";

describe("recordedNumbers", () => {
  it("reads each candidate's numbers from its fwmark rule, keyed by policy and candidate", () => {
    const ledger = new Ledger();
    const now = new Date();
    const owner = "net.routerd.net/v1alpha1/EgressRoutePolicy/internet";
    ledger.record({ kind: "linux.ipv4.fwmarkRule", name: "priority=20007,mark=0x108,table=107", owners: [owner], ownership: "created", state: "present", attributes: { priority: 20007, mark: 0x108, table: 107, candidate: "isp1" }, now });
    // The policy's suppress rule names no candidate; another kind's rule is not an allocation.
    ledger.record({ kind: "linux.ipv4.fwmarkRule", name: "priority=20006,mark=0x100,table=254", owners: [owner], ownership: "created", state: "present", attributes: { priority: 20006, mark: 0x100, mask: 0x100, table: 254 }, now });
    ledger.record({ kind: "linux.ipv4.fwmarkRule", name: "priority=900,mark=0x1f0,table=90", owners: ["net.routerd.net/v1alpha1/IPv4Route/x"], ownership: "created", state: "present", attributes: { priority: 900, mark: 0x1f0, table: 90, candidate: "y" }, now });
    expect([...recordedNumbers(ledger)]).toEqual([["internet/isp1", { table: 107, mark: 0x108, priority: 20007 }]]);
  });
});
