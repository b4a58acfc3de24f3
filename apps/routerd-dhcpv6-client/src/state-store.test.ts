import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Lease } from "./lease.js";
import { loadDuid, loadLease, saveDuid, saveLease } from "./state-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd6-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lease: Lease = {
  serverId: "000100013a0b",
  serverAddress: "fe80::1%wan0",
  updatedAt: 1_800_000_000_000,
  t1: 100,
  t2: 200,
  prefixes: [{ prefix: "2001:db8:1000::", length: 56, preferredLifetime: 300, validLifetime: 600, obtainedAt: 1_800_000_000_000 }],
  addresses: [],
  information: { dnsServers: ["2001:db8::53"], domainSearch: [], sntpServers: [] },
};

describe("state store", () => {
  it("persists the DUID as colon hex and reads it back", () => {
    expect(loadDuid(dir)).toEqual({});
    saveDuid(dir, Uint8Array.from([0, 3, 0, 1, 2, 0, 0x5e, 1, 2, 3]));
    expect(readFileSync(join(dir, "duid"), "utf8")).toBe("00:03:00:01:02:00:5e:01:02:03\n");
    expect(loadDuid(dir).duid).toEqual(Uint8Array.from([0, 3, 0, 1, 2, 0, 0x5e, 1, 2, 3]));
  });

  it("reports an unusable DUID file instead of using it", () => {
    writeFileSync(join(dir, "duid"), "zz\n");
    expect(loadDuid(dir).error).toMatch(/unusable DUID/);
  });

  it("round-trips the lease and the last prefix, leaving no temp files", () => {
    saveLease(dir, lease, { prefix: "2001:db8:1000::", length: 56 });
    expect(loadLease(dir)).toEqual({ lease, lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
    saveLease(dir, undefined, { prefix: "2001:db8:1000::", length: 56 });
    expect(loadLease(dir)).toEqual({ lastPrefix: { prefix: "2001:db8:1000::", length: 56 } });
    expect(readdirSync(dir)).toEqual(["lease.json"]);
  });

  it("survives a corrupt or foreign lease file", () => {
    writeFileSync(join(dir, "lease.json"), "{not json");
    expect(loadLease(dir).error).toMatch(/not valid JSON/);
    writeFileSync(join(dir, "lease.json"), JSON.stringify({ version: 7 }));
    expect(loadLease(dir).error).toMatch(/unsupported/);
    writeFileSync(join(dir, "lease.json"), JSON.stringify({ version: 1, lease: { serverId: 5 }, lastPrefix: { prefix: "x", length: 999 } }));
    expect(loadLease(dir)).toEqual({});
  });
});
