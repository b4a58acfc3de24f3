import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { leaseFromAck, type DhcpLease } from "./lease.js";
import { LeaseStore } from "./lease-store.js";
import { MessageType } from "./options.js";
import { reply } from "./test-support/replies.js";

const identity = { interface: "wan0", mac: "02:00:5e:10:20:30", clientId: "01:02:00:5e:10:20:30" };
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "rd-dhcpv4-store-"));
  dirs.push(d);
  return d;
}

function lease(): DhcpLease {
  const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 60 }), 1000);
  if (!r.ok) throw new Error(r.error);
  return r.lease;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("lease store", () => {
  it("saves atomically with mode 0600 and loads the same lease back", async () => {
    const dir = join(tempDir(), "nested");
    const store = new LeaseStore(dir, identity);
    expect(store.load()).toEqual({ lease: null, reason: "no stored lease" });
    await store.save(lease());
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(new LeaseStore(dir, identity).load()).toEqual({ lease: lease() });
    store.clear();
    expect(store.load().lease).toBeNull();
  });

  it("ignores a lease obtained with another identity, a damaged file and a future format", async () => {
    const dir = tempDir();
    await new LeaseStore(dir, identity).save(lease());
    expect(new LeaseStore(dir, { ...identity, mac: "02:00:00:00:00:01" }).load()).toEqual({
      lease: null,
      reason: "stored lease belongs to another interface or identity",
    });
    const path = join(dir, "lease.json");
    const doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...doc, version: 2 }));
    expect(new LeaseStore(dir, identity).load()).toEqual({ lease: null, reason: "unknown lease file version 2" });
    writeFileSync(path, "{not json");
    expect(new LeaseStore(dir, identity).load()).toEqual({ lease: null, reason: "stored lease is not JSON" });
    writeFileSync(path, JSON.stringify({ ...doc, lease: { address: "x" } }));
    expect(new LeaseStore(dir, identity).load()).toEqual({ lease: null, reason: "stored lease is malformed" });
  });
});
