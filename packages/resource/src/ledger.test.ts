import { describe, expect, it } from "vitest";
import { ownerKey } from "./artifact.js";
import { LEDGER_API_VERSION, Ledger, LedgerFormatError, type LedgerEntry } from "./ledger.js";

const NAT = ownerKey("net.routerd.net/v1alpha1", "NAT44Rule", "lan");
const FWD = ownerKey("firewall.routerd.net/v1alpha1", "PortForward", "web");
const NOW = new Date("2026-01-02T03:04:05.000Z");

const goodEntry: LedgerEntry = {
  kind: "nft.table",
  name: "ip/routerd_nat",
  owner: FWD,
  owners: [FWD, NAT],
  ownership: "created",
  state: "present",
  attributes: { family: "ip", table: "routerd_nat" },
  generation: 3,
  recordedAt: NOW.toISOString(),
};

const doc = (over: Record<string, unknown> = {}, entries: unknown[] = [goodEntry]) =>
  JSON.stringify({ apiVersion: LEDGER_API_VERSION, generation: 3, entries, ...over });

describe("Ledger model", () => {
  it("records an entry with sorted, de-duplicated owners and the first as primary owner", () => {
    const l = new Ledger();
    const e = l.record({ kind: "nft.table", name: "ip/routerd_nat", owners: [NAT, FWD, NAT], ownership: "created", state: "pending", attributes: {}, now: NOW });
    expect(e.owners).toEqual([FWD, NAT]);
    expect(e.owner).toBe(FWD);
    expect(e.recordedAt).toBe(NOW.toISOString());
    expect(e.generation).toBe(1);
    expect(l.get("nft.table", "ip/routerd_nat")).toBe(e);
    expect(l.ownedBy(NAT)).toEqual([e]);
  });

  it("keeps an adopted entry adopted when routerd later records it as created", () => {
    const l = new Ledger();
    l.record({ kind: "linux.link", name: "wan0", owners: [NAT], ownership: "adopted", state: "present", attributes: {} });
    const again = l.record({ kind: "linux.link", name: "wan0", owners: [NAT], ownership: "created", state: "present", attributes: { mtu: 1500 } });
    expect(again.ownership).toBe("adopted");
    expect(again.attributes).toEqual({ mtu: 1500 });
  });

  it("refuses an entry without owners", () => {
    expect(() => new Ledger().record({ kind: "linux.link", name: "x", owners: [], ownership: "created", state: "present", attributes: {} })).toThrow(
      /needs an owner/,
    );
  });

  it("moves pending to present, forgets, and lists sorted by artifact id", () => {
    const l = new Ledger();
    l.record({ kind: "nft.table", name: "ip/routerd_nat", owners: [NAT], ownership: "created", state: "pending", attributes: {} });
    l.record({ kind: "linux.hostname", name: "system", owners: [NAT], ownership: "created", state: "present", attributes: {} });
    expect(l.record({ kind: "nft.table", name: "ip/routerd_nat", owners: [NAT], ownership: "created", state: "present", attributes: {} }).state).toBe("present");
    expect(l.list().map((e) => e.kind)).toEqual(["linux.hostname", "nft.table"]);
    expect(l.forget("nft.table", "ip/routerd_nat")).toBe(true);
    expect(l.forget("nft.table", "ip/routerd_nat")).toBe(false);
    expect(l.size).toBe(1);
  });

  it("clones deeply and round-trips through its document", () => {
    const l = Ledger.parse(doc(), "mem");
    const c = l.clone();
    c.get("nft.table", "ip/routerd_nat")!.attributes.family = "inet";
    expect(l.get("nft.table", "ip/routerd_nat")!.attributes.family).toBe("ip");
    expect(Ledger.parse(JSON.stringify(l.toDocument()), "mem").toDocument()).toEqual(l.toDocument());
  });
});

describe("Ledger.parse is strict: an unreadable ledger is an error, never an empty ledger", () => {
  const withEntry = (over: Record<string, unknown>) => doc({}, [{ ...goodEntry, ...over }]);
  const without = (field: keyof LedgerEntry) => {
    const { [field]: _dropped, ...rest } = goodEntry;
    return doc({}, [rest]);
  };
  it.each([
    ["empty file", "", /invalid JSON/],
    ["truncated JSON", doc().slice(0, 60), /invalid JSON/],
    ["null", "null", /apiVersion must be/],
    ["a list", "[]", /apiVersion must be/],
    ["missing apiVersion", JSON.stringify({ generation: 1, entries: [] }), /apiVersion must be routerd.net\/ledger\/v1/],
    ["wrong apiVersion", doc({ apiVersion: "routerd.net/ledger/v2" }), /apiVersion must be/],
    ["negative generation", doc({ generation: -1 }), /generation must be a non-negative integer/],
    ["fractional generation", doc({ generation: 1.5 }), /generation must be/],
    ["entries not a list", doc({ entries: {} }), /entries must be a list/],
    ["entry not an object", doc({}, [42]), /entries\[0\] is not an object/],
    ["unknown artifact kind", withEntry({ kind: "nft.chain" }), /entries\[0\]\.kind "nft.chain" is not one of/],
    ["empty name", withEntry({ name: "" }), /entries\[0\]\.name must be a non-empty string/],
    ["missing owner", without("owner"), /entries\[0\]\.owner must be/],
    ["missing recordedAt", without("recordedAt"), /entries\[0\]\.recordedAt must be/],
    ["empty owners", withEntry({ owners: [] }), /entries\[0\]\.owners must be a non-empty list/],
    ["non-string owner", withEntry({ owners: [1] }), /owners must be/],
    ["bad ownership", withEntry({ ownership: "observed" }), /ownership must be created or adopted/],
    ["bad state", withEntry({ state: "gone" }), /state must be pending or present/],
    ["attributes a list", withEntry({ attributes: [] }), /attributes must be an object/],
    ["attributes missing", without("attributes"), /attributes must be an object/],
    ["generation missing", without("generation"), /entries\[0\]\.generation must be an integer/],
  ])("%s → LedgerFormatError", (_label, text, message) => {
    let caught: unknown;
    try {
      Ledger.parse(text, "/state/artifacts.json");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LedgerFormatError);
    const e = caught as LedgerFormatError;
    expect(e.path).toBe("/state/artifacts.json");
    expect(e.message).toMatch(message);
    expect(e.message).toContain("restore the newest file from backups/");
  });

  it("names the failing entry by index", () => {
    expect(() => Ledger.parse(doc({}, [goodEntry, { ...goodEntry, name: "ip/routerd_x", state: "??" }]), "f")).toThrow(/entries\[1\]\.state/);
  });

  it("accepts a valid document, including an empty one", () => {
    expect(Ledger.parse(doc(), "f").size).toBe(1);
    expect(Ledger.parse(doc({ generation: 0 }, []), "f").size).toBe(0);
  });
});
